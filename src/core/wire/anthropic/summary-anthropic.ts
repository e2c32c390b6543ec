/** The summary call on the Anthropic Messages API, borrowing the request being compacted. */
import type { SummaryRequest } from '../../summary/summary-model.js';
import { textOfBlocks, withoutStreaming } from '../_internal/summary-call.js';
import type { SummaryCall } from '../dialect.js';

export function anthropicSummaryCall(
  url: URL,
  body: Record<string, unknown>,
  request: SummaryRequest,
): SummaryCall {
  // Thinking is turned off for the summary: its messages lose their thinking blocks, and the
  // API rejects thinking on a history whose last assistant turn used tools without them.
  const { thinking: _thinking, context_management: management, ...settings } = withoutStreaming(body);
  const kept = withoutThinkingEdits(management);
  return {
    url,
    body: {
      ...settings,
      ...(kept === undefined ? {} : { context_management: kept }),
      ...(request.system === undefined ? {} : { system: request.system }),
      messages: request.messages,
      max_tokens: request.maxOutputTokens,
    },
  };
}

export function anthropicAnswerText(answer: Record<string, unknown>): string {
  return textOfBlocks(answer.content);
}

/** Context management without its thinking edits (they need thinking on); `undefined` when none are left. */
function withoutThinkingEdits(management: unknown): unknown {
  if (typeof management !== 'object' || management === null) return management;
  const edits = (management as { edits?: unknown }).edits;
  if (!Array.isArray(edits)) return management;
  const kept = edits.filter(
    (edit: { type?: unknown }) => !String(edit?.type ?? '').startsWith('clear_thinking'),
  );
  return kept.length === 0 ? undefined : { ...management, edits: kept };
}
