/** The summary call on the OpenAI Responses API, borrowing the request being compacted. */

import { readableHistory } from '../../summary/readable-history.js';
import type { SummaryRequest } from '../../summary/summary-model.js';
import { openAIForcesTool, withoutForcedOutput, withoutStreaming } from '../_internal/summary-call.js';
import type { SummaryCall } from '../dialect.js';
import { toResponsesInput } from './responses-format.js';

export function responsesSummaryCall(
  url: URL,
  body: Record<string, unknown>,
  request: SummaryRequest,
): SummaryCall {
  // System text read from `instructions` stays there (toResponsesInput leaves it out).
  const input = toResponsesInput(readableHistory(request.messages), request.system);
  const settings = withoutForcedOutput(withoutStreaming(body), {
    forcesTool: openAIForcesTool,
    formatField: 'text',
  });
  return { url, body: { ...settings, input, max_output_tokens: request.maxOutputTokens } };
}

export function responsesAnswerText(answer: Record<string, unknown>): string {
  const output = Array.isArray(answer.output)
    ? (answer.output as { type?: unknown; content?: unknown }[])
    : [];
  return output
    .filter((item) => item?.type === 'message' && Array.isArray(item.content))
    .flatMap((item) => item.content as { type?: unknown; text?: unknown }[])
    .filter((part) => part?.type === 'output_text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}
