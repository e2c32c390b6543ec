/**
 * The `anthropic-context-editing` peer: the Messages API's server-side context management, replayed.
 *
 * Sources: Anthropic, "Context editing" (docs.claude.com/en/docs/build-with-claude/context-editing)
 * and the SDKs' `BetaClearToolUses20250919Edit` / `BetaCompact20260112Edit` types.
 * - `clear_tool_uses_20250919` with `trigger` at the run's mid threshold (input tokens), `keep: 3`
 *   tool uses and no `clear_at_least`: once the prompt passes the trigger, the API clears the
 *   oldest tool results, all but the 3 newest, replacing each with placeholder text. It edits the
 *   prompt on the server; the client keeps and sends its full history, so every request is edited
 *   afresh — and without `clear_at_least` each new tool result past the trigger clears one more,
 *   rewriting the cached prefix.
 * - `compact_20260112` with its trigger at the run's hard threshold: the API summarizes the
 *   conversation and returns a compaction block; the client sends it back and what came before it
 *   is dropped (a change to the client's history).
 * Clearing counts as `micro`, a compaction as `hard`.
 */
import type { Message } from '../../core/conversation/types.js';
import type { ReplayStrategy, StrategyStep } from '../replay-strategies.js';
import {
  clearToolResults,
  createOriginalResults,
  createPeerCounter,
  defaultPeerThresholds,
  idsToClearKeepingNewest,
  type PeerOptions,
  splitCurrentTurn,
  standInSummary,
  summaryMessage,
  toolResultPositions,
  withSummaryFirst,
} from './_peer-tools.js';

/** Tool uses `clear_tool_uses_20250919` keeps (`keep: { type: 'tool_uses', value: 3 }`, the default). */
export const CONTEXT_EDITING_KEEP_TOOL_USES = 3;

/** The API does not publish its placeholder; a short marker of similar size stands in for it. */
export const CONTEXT_EDITING_PLACEHOLDER = '[Tool result cleared by context management]';

const framing = 'Compaction summary of the conversation before this point:';

/** Anthropic's context editing and compaction over the run's thresholds. */
export function createAnthropicContextEditingStrategy({
  hard = defaultPeerThresholds.hard,
  mid = defaultPeerThresholds.mid,
  summarizer,
  counter,
}: PeerOptions): ReplayStrategy {
  const tokens = createPeerCounter(counter);
  const originals = createOriginalResults(CONTEXT_EDITING_PLACEHOLDER);
  // Edits are redone on every request; the layer fires only when a result is cleared for the first time.
  let cleared = new Set<string>();
  return {
    name: 'anthropic-context-editing',
    thresholds: { mid, hard },
    async step(input, { system }): Promise<StrategyStep> {
      // The client's history: what it sent last time, with the server's edits undone.
      let messages: Message[] = originals.restore(input);
      let layer: StrategyStep['layer'] = 'none';
      if (tokens.request(system, messages) > hard) {
        const { before, turn } = splitCurrentTurn(messages);
        if (before.length > 0) {
          const summary = await standInSummary(summarizer, system, before);
          messages = withSummaryFirst(summaryMessage(framing, summary), turn);
          layer = 'hard';
        }
      }
      if (tokens.request(system, messages) > mid) {
        const positions = toolResultPositions(messages, counter, [CONTEXT_EDITING_PLACEHOLDER]);
        const ids = idsToClearKeepingNewest(positions, CONTEXT_EDITING_KEEP_TOOL_USES);
        if ([...ids].some((id) => !cleared.has(id)) && layer === 'none') layer = 'micro';
        messages = clearToolResults(messages, ids, CONTEXT_EDITING_PLACEHOLDER);
        cleared = ids;
      }
      return { messages, layer };
    },
  };
}
