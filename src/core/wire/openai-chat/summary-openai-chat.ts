/** The summary call on OpenAI Chat Completions, borrowing the request being compacted. */
import { toOpenAIMessages } from '../../conversation/openai-format.js';
import { readableHistory } from '../../summary/readable-history.js';
import type { SummaryRequest } from '../../summary/summary-model.js';
import {
  openAIForcesTool,
  withoutForcedOutput,
  withoutStreaming,
  withSystem,
} from '../_internal/summary-call.js';
import type { SummaryCall } from '../dialect.js';

export function openAIChatSummaryCall(
  url: URL,
  body: Record<string, unknown>,
  request: SummaryRequest,
): SummaryCall {
  const messages = toOpenAIMessages(withSystem(readableHistory(request.messages), request.system));
  // The request's own limit field: older models take `max_tokens`, newer ones only the other.
  const limitField = body.max_tokens !== undefined ? 'max_tokens' : 'max_completion_tokens';
  const settings = withoutForcedOutput(withoutStreaming(body), {
    forcesTool: openAIForcesTool,
    formatField: 'response_format',
  });
  return { url, body: { ...settings, messages, [limitField]: request.maxOutputTokens } };
}

export function openAIChatAnswerText(answer: Record<string, unknown>): string {
  const choices = answer.choices as { message?: { content?: unknown } }[] | undefined;
  return String(choices?.[0]?.message?.content ?? '');
}
