/** The summary call on the Anthropic Messages API, borrowing the request being compacted. */
import type { Message } from '../../model/messages.js';
import { readableHistory } from '../../summary/readable-history.js';
import type { SummaryRequest } from '../../summary/summary-model.js';
import { textOfBlocks, withoutStreaming } from '../_internal/summary-call.js';
import type { SummaryCall } from '../dialect.js';

/**
 * The request as the agent sent it with the history replaced by the summary request's. When the
 * agent thinks and the history still carries its thinking blocks, thinking stays on as the agent
 * set it (so the summary reads the agent's cached messages, as Claude Code's own compaction does)
 * and the request's own `max_tokens` bounds the thinking and the summary together. Otherwise
 * thinking is turned off and the history loses its thinking blocks: the API rejects thinking on
 * a history whose last assistant turn used tools without them.
 */
export function anthropicSummaryCall(
  url: URL,
  body: Record<string, unknown>,
  request: SummaryRequest,
): SummaryCall {
  const { thinking, context_management: management, ...settings } = withoutStreaming(body);
  const keepsThinking = thinkingOn(thinking) && lastAssistantThinks(request.messages);
  const kept = keepsThinking ? management : withoutThinkingEdits(management);
  return {
    url,
    body: {
      ...settings,
      ...(keepsThinking ? { thinking } : {}),
      ...(kept === undefined ? {} : { context_management: kept }),
      ...(request.system === undefined ? {} : { system: request.system }),
      messages: keepsThinking ? request.messages : readableHistory(request.messages),
      max_tokens:
        keepsThinking && typeof body.max_tokens === 'number' ? body.max_tokens : request.maxOutputTokens,
    },
  };
}

export function anthropicAnswerText(answer: Record<string, unknown>): string {
  return textOfBlocks(answer.content);
}

function thinkingOn(thinking: unknown): boolean {
  const type = (thinking as { type?: unknown } | undefined)?.type;
  return type !== undefined && type !== 'disabled';
}

/** Whether the last assistant message opens with its thinking, as the API wants with thinking on. */
function lastAssistantThinks(messages: readonly Message[]): boolean {
  const last = messages.findLast((message) => message.role === 'assistant');
  const first = Array.isArray(last?.content) ? last.content[0] : undefined;
  return first?.type === 'thinking' || first?.type === 'redacted_thinking';
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
