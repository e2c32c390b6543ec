/**
 * The `codex` peer: OpenAI Codex CLI's compaction, replayed.
 *
 * Source: openai/codex `codex-rs/core/src/compact.rs`. When the tokens used pass the model's
 * `auto_compact_token_limit` (mapped here to the run's hard threshold), Codex asks the model for a
 * summary and rebuilds the history (`build_compacted_history`) as the initial context, the most
 * recent user messages up to `COMPACT_USER_MESSAGE_MAX_TOKENS` = 20,000 tokens (older ones dropped,
 * the oldest kept one truncated to fit; earlier summaries are not user messages), then the summary.
 * Nothing is cleared in between. The budget assumes a 200k window and is scaled by hard ÷ 200,000.
 * The turn in progress (the last call and its results) follows verbatim, as in every replayed policy.
 */
import type { Message, TextBlock } from 'agent-compact';
import { contentBlocks } from 'agent-compact/wire';
import type { ReplayStrategy, StrategyStep } from '../replay-strategy.js';
import {
  defaultPeerThresholds,
  type PeerOptions,
  scaledBudget,
  splitCurrentTurn,
  standInSummary,
  triggerSize,
} from './_peer-tools.js';

/** Recent user messages kept after a summary, in tokens (`COMPACT_USER_MESSAGE_MAX_TOKENS`, 200k window). */
export const CODEX_USER_MESSAGE_MAX_TOKENS = 20_000;

// Codex's SUMMARY_PREFIX marks the summary message; its text is not a user message on the next compaction.
const summaryPrefix =
  'Another language model started to solve this problem and produced a summary of its thinking process.';

/** Codex's policy over the run's thresholds. */
export function createCodexStrategy({
  hard = defaultPeerThresholds.hard,
  mid = defaultPeerThresholds.mid,
  summarizer,
  tokens,
  size,
}: PeerOptions): ReplayStrategy {
  const { counter } = tokens;
  const sizeOf = triggerSize({ tokens, size });
  const userBudget = scaledBudget(CODEX_USER_MESSAGE_MAX_TOKENS, hard);

  /** The newest user texts (not tool results, not summaries) within the budget, oldest first. */
  function recentUserTexts(messages: readonly Message[]): TextBlock[] {
    const texts: string[] = [];
    for (const message of messages) {
      if (message.role !== 'user') continue;
      for (const block of contentBlocks(message)) {
        if (block.type !== 'text' || typeof block.text !== 'string') continue;
        if (block.text.startsWith(summaryPrefix) || block.text.trim() === '') continue;
        texts.push(block.text);
      }
    }
    const kept: TextBlock[] = [];
    let remaining = userBudget;
    for (let index = texts.length - 1; index >= 0 && remaining > 0; index--) {
      const text = texts[index]!;
      const size = counter.countText(text);
      if (size <= remaining) {
        kept.unshift({ type: 'text', text });
        remaining -= size;
      } else {
        // Codex truncates the message that does not fit to the budget left.
        const share = Math.floor((text.length * remaining) / size);
        kept.unshift({ type: 'text', text: `${text.slice(0, share)}…[truncated]` });
        remaining = 0;
      }
    }
    return kept;
  }

  return {
    name: 'codex',
    thresholds: { mid, hard },
    async step(input, { system }): Promise<StrategyStep> {
      if (sizeOf({ system, messages: input }) <= hard) return { messages: [...input], layer: 'none' };
      const { before, turn } = splitCurrentTurn(input);
      if (before.length === 0) return { messages: [...input], layer: 'none' };
      const summary = await standInSummary(summarizer, system, before);
      const rebuilt: Message = {
        role: 'user',
        content: [...recentUserTexts(before), { type: 'text', text: `${summaryPrefix}\n\n${summary}` }],
      };
      return { messages: [rebuilt, ...turn], layer: 'hard' };
    },
  };
}
