/**
 * The `opencode` peer: sst/opencode's compaction, replayed.
 *
 * Source: sst/opencode `packages/opencode/src/session/compaction.ts`.
 * - `prune()`: walks the history backwards, skipping the last 2 user turns; stops at a summary or
 *   at a tool output already compacted; adds up tool-output tokens, and every output beyond the
 *   newest `PRUNE_PROTECT` = 40,000 tokens becomes a candidate; when the candidates add up to more
 *   than `PRUNE_MINIMUM` = 20,000 tokens they are marked compacted and sent as
 *   `[Old tool result content cleared]` (`message-v2.ts`, `toModelMessages`). opencode prunes after
 *   each loop; here it is checked before every request.
 * - `isOverflow()`: when the context passes the usable window (mapped here to the run's hard
 *   threshold) the session is summarized and the history before the summary is no longer sent.
 * User turns are messages a person wrote (tool results are parts of assistant messages in
 * opencode). Budgets assume a 200k window and are scaled by hard ÷ 200,000. Pruning counts as
 * `micro`, a summary as `hard`.
 */
import type { Message, TokenCounter } from 'agent-compact';
import { contentBlocks } from 'agent-compact/wire';
import type { ReplayStrategy, StrategyStep } from '../replay-strategy.js';
import { createHardSummary, currentTurnStart } from './_peer-steps.js';
import {
  clearToolResults,
  defaultPeerThresholds,
  isHumanMessage,
  OLD_TOOL_RESULT_CLEARED,
  type PeerOptions,
  scaledBudget,
  toolResultPositions,
} from './_peer-tools.js';

/** Prune only when at least this many tokens would go (`PRUNE_MINIMUM`, 200k window). */
export const OPENCODE_PRUNE_MINIMUM = 20_000;
/** The newest tool output kept whole, in tokens (`PRUNE_PROTECT`, 200k window). */
export const OPENCODE_PRUNE_PROTECT = 40_000;
/** User turns never pruned. */
export const OPENCODE_PROTECTED_USER_TURNS = 2;

const framing = 'Summary of the conversation so far (the messages before it are no longer shown):';

/** opencode's policy over the run's thresholds. */
export function createOpencodeStrategy({
  hard = defaultPeerThresholds.hard,
  mid = defaultPeerThresholds.mid,
  summarizer,
  tokens,
  size,
}: PeerOptions): ReplayStrategy {
  const { counter } = tokens;
  const pruneMinimum = scaledBudget(OPENCODE_PRUNE_MINIMUM, hard);
  const pruneProtect = scaledBudget(OPENCODE_PRUNE_PROTECT, hard);

  const summarizeOverHard = createHardSummary({
    hard,
    tokens,
    size,
    summarizer,
    framing,
    keepFrom: currentTurnStart,
  });

  return {
    name: 'opencode',
    thresholds: { mid, hard },
    async step(input, { system }): Promise<StrategyStep> {
      let messages: Message[] = [...input];
      let layer: StrategyStep['layer'] = 'none';
      const targets = pruneTargets(messages, counter, { pruneProtect, pruneMinimum });
      if (targets.size > 0) {
        messages = clearToolResults(messages, targets, OLD_TOOL_RESULT_CLEARED);
        layer = 'micro';
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

/**
 * The tool results `prune()` would clear, or none when they free too little: walking back from the
 * newest message past the protected user turns, every output beyond the newest `pruneProtect`
 * tokens, up to a summary or an output already cleared.
 */
function pruneTargets(
  messages: readonly Message[],
  counter: TokenCounter,
  { pruneProtect, pruneMinimum }: { pruneProtect: number; pruneMinimum: number },
): Set<string> {
  const positions = toolResultPositions(messages, counter, [OLD_TOOL_RESULT_CLEARED]);
  let userTurns = 0;
  let total = 0;
  let pruned = 0;
  const targets = new Set<string>();
  let next = positions.length - 1;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (isHumanMessage(message) && !isSummary(message)) userTurns++;
    if (isSummary(message)) break;
    let stop = false;
    for (; next >= 0 && positions[next]!.messageIndex === index; next--) {
      const position = positions[next]!;
      if (userTurns < OPENCODE_PROTECTED_USER_TURNS) continue;
      if (position.cleared) {
        stop = true;
        break;
      }
      total += position.tokens;
      if (total > pruneProtect) {
        pruned += position.tokens;
        targets.add(position.id);
      }
    }
    if (stop) break;
  }
  return pruned > pruneMinimum ? targets : new Set();
}

function isSummary(message: Message): boolean {
  return contentBlocks(message).some(
    (block) => block.type === 'text' && typeof block.text === 'string' && block.text.startsWith(framing),
  );
}
