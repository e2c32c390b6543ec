/**
 * The `claude-code` peer: Claude Code's own context management, replayed.
 *
 * Sources (Claude Code is closed source; the rules below are as documented by people who read its
 * bundled `src/services/compact/`):
 * - Auto-compact fires when the context nears the window (about 167k of 200k, a 13k buffer below
 *   the effective window) — mapped here to the run's hard threshold. The session-memory variant
 *   (`sessionMemoryCompact.ts`) keeps the recent messages verbatim after the summary: at least
 *   10,000 and at most 40,000 tokens of them (`minTokens` / `maxTokens`), never starting on a tool
 *   result whose call it would cut off. (gentic.news "How Claude Code's 3-tier…"; the "Silent
 *   Microcompact" notes on anthropics/claude-code#42542.)
 * - Time-based microcompact (`microCompact.ts`): when the gap since the previous request exceeds the
 *   cache lifetime (the cache is cold anyway), every tool result but the 5 newest becomes
 *   `[Old tool result content cleared]`. (zhanghandong, "Harness engineering from CC", ch. 11.)
 * Budgets assume a 200k window and are scaled by hard ÷ 200,000. Clearing counts as `micro`, a
 * summary as `hard`.
 */
import type { Message } from 'agent-compact';
import type { RequestTokenCounter } from '../prompt-cache.js';
import type { ReplayStrategy, StrategyStep } from '../replay-strategy.js';
import { clearAllButNewest, createHardSummary, currentTurnStart } from './_peer-steps.js';
import {
  defaultPeerThresholds,
  isToolResultMessage,
  OLD_TOOL_RESULT_CLEARED,
  type PeerOptions,
  scaledBudget,
} from './_peer-tools.js';

/** Recent tokens kept verbatim after a summary, at least (`sessionMemoryCompact.ts` minTokens, 200k window). */
export const CLAUDE_CODE_KEEP_MIN_TOKENS = 10_000;
/** …and at most (`maxTokens`). */
export const CLAUDE_CODE_KEEP_MAX_TOKENS = 40_000;
/** Tool results time-based microcompact keeps whole (`keepRecent`). */
export const CLAUDE_CODE_MICROCOMPACT_KEEP = 5;

const framing =
  'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.';

/** Claude Code's policy over the run's thresholds. */
export function createClaudeCodeStrategy({
  hard = defaultPeerThresholds.hard,
  mid = defaultPeerThresholds.mid,
  summarizer,
  tokens,
  size,
}: PeerOptions): ReplayStrategy {
  const { counter } = tokens;
  const keepMin = scaledBudget(CLAUDE_CODE_KEEP_MIN_TOKENS, hard);
  const keepMax = scaledBudget(CLAUDE_CODE_KEEP_MAX_TOKENS, hard);

  const summarizeOverHard = createHardSummary({
    hard,
    tokens,
    size,
    summarizer,
    framing,
    keepFrom: (messages) => keptStart(messages, currentTurnStart(messages), tokens, { keepMin, keepMax }),
  });

  return {
    name: 'claude-code',
    thresholds: { mid, hard },
    async step(input, { system, secondsSincePrevious, cacheTtlSeconds }): Promise<StrategyStep> {
      let messages: Message[] = [...input];
      let layer: StrategyStep['layer'] = 'none';
      if (secondsSincePrevious !== undefined && secondsSincePrevious > cacheTtlSeconds) {
        const microcompacted = clearAllButNewest(messages, {
          counter,
          keep: CLAUDE_CODE_MICROCOMPACT_KEEP,
          placeholder: OLD_TOOL_RESULT_CLEARED,
        });
        if (microcompacted.clearedIds.size > 0) {
          messages = microcompacted.messages;
          layer = 'micro';
        }
      }
      const summarized = await summarizeOverHard(messages, system);
      if (summarized) {
        messages = summarized;
        layer = 'hard';
      }
      return { messages, layer };
    },
  };
}

/** Where the verbatim part starts: back from the turn in progress until keepMin, never past keepMax. */
function keptStart(
  messages: readonly Message[],
  turnStart: number,
  tokens: RequestTokenCounter,
  { keepMin, keepMax }: { keepMin: number; keepMax: number },
): number {
  let start = turnStart;
  let kept = messages.slice(start).reduce((sum, message) => sum + tokens.message(message), 0);
  while (start > 0 && kept < keepMin) {
    const next = kept + tokens.message(messages[start - 1]!);
    if (next > keepMax) break;
    start--;
    kept = next;
  }
  // Never start on tool results whose call is cut off: take the call too, or drop the results.
  if (start > 0 && start < turnStart && isToolResultMessage(messages[start]!)) {
    if (kept + tokens.message(messages[start - 1]!) <= keepMax) start--;
    else start++;
  }
  return start;
}
