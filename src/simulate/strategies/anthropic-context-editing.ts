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
import type { ReplayStrategy } from '../replay-strategy.js';
import { createSummarizeThenClearStrategy, currentTurnStart } from './_peer-steps.js';
import type { PeerOptions } from './_peer-tools.js';

/** Tool uses `clear_tool_uses_20250919` keeps (`keep: { type: 'tool_uses', value: 3 }`, the default). */
export const CONTEXT_EDITING_KEEP_TOOL_USES = 3;

/** The API does not publish its placeholder; a short marker of similar size stands in for it. */
export const CONTEXT_EDITING_PLACEHOLDER = '[Tool result cleared by context management]';

const framing = 'Compaction summary of the conversation before this point:';

/** Anthropic's context editing and compaction over the run's thresholds. */
export function createAnthropicContextEditingStrategy(options: PeerOptions): ReplayStrategy {
  // The client's history is what it sent last time, with the server's edits undone.
  return createSummarizeThenClearStrategy('anthropic-context-editing', options, {
    framing,
    keepFrom: currentTurnStart,
    keep: CONTEXT_EDITING_KEEP_TOOL_USES,
    placeholder: CONTEXT_EDITING_PLACEHOLDER,
  });
}
