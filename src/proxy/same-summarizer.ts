/**
 * The `same` summarizer: the client's own provider, model and key, read from the request being
 * compacted. The request's system, tools and history go upstream unchanged with the summary
 * instructions appended, so the provider reads the prefix from its prompt cache. Keys stay in the
 * headers of that one request: never in errors, logs or archives.
 */

import type { IncomingHttpHeaders } from 'node:http';
import type { SummaryModel, SummaryResult } from 'agent-compact';
import { CompactError } from 'agent-compact';
import type { WireDialect } from 'agent-compact/internal';
import { dialects, SAME_MODEL_PROVIDER } from 'agent-compact/internal';
import { callWithRetries, describeSdkError, summaryRetryPolicy } from 'agent-compact/retry';
import type { WireFormat } from 'agent-compact/wire';
import { upstreamHeaders } from './forward.js';
import type { UpstreamCall, UpstreamClient } from './upstream/upstream-client.js';

/** The request a summary borrows its provider, model, key and settings from. */
export interface SummaryContext {
  api: WireFormat;
  /** The upstream URL of the request (same path and query). */
  url: URL;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/**
 * A summary model bound to one request: it summarizes with that request's provider, model, key and
 * settings. The proxy passes it with the compaction call of that request (a background summary it
 * starts keeps it).
 */
export function createSameSummaryModel(client: UpstreamClient, context: SummaryContext): SummaryModel {
  const dialect = dialects[context.api];
  return {
    specificationVersion: 'v1',
    provider: SAME_MODEL_PROVIDER,
    modelId: 'same',
    async summarize(request, options = {}) {
      const call = dialect.summaryCall(context.url, context.body, request);
      const headers = upstreamHeaders(context.headers, undefined);
      delete headers['content-length'];
      headers['accept-encoding'] = 'identity';
      headers['content-type'] = 'application/json';
      const body = JSON.stringify(call.body);
      const where = `${context.url.origin}${context.url.pathname}`;
      const text = await callWithRetries({
        provider: 'same summarizer',
        policy: retryPolicy,
        signal: options.signal,
        attempt: (signal) =>
          sendOnce(client, { url: call.url, method: 'POST', headers, body, signal }, where),
        describeError: (error) =>
          error instanceof SummaryAnswerError
            ? describeSdkError(error)
            : { ...describeSdkError(error), message: `${context.url.origin} could not be reached` },
      });
      return readSummary(dialect, text);
    },
  };
}

/**
 * How the summary call is tried again: a 429, a 5xx (Anthropic's 529 overloaded) or a dropped
 * connection is often gone a moment later, and the extractive fallback stays in the session's
 * history for good. Each try is bounded by the upstream client's own timeout (`--upstream-timeout`),
 * so the loop sets none of its own (the longest a timer takes).
 */
const retryPolicy = summaryRetryPolicy({ timeoutMs: 2 ** 31 - 1 });

/** A summary answer that was not a success, with the status and headers the retry loop reads. */
class SummaryAnswerError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly headers: Headers,
  ) {
    super(message);
  }
}

/** One try of the summary call: the answer's text, or a {@link SummaryAnswerError} for its status. */
async function sendOnce(client: UpstreamClient, call: UpstreamCall, where: string): Promise<string> {
  const answer = await client.send(call);
  const text = await answer.body.text();
  if (answer.status >= 200 && answer.status < 300) return text;
  // The provider's own message stays out: only the status, never a body that may echo the request.
  throw new SummaryAnswerError(
    `${where} answered ${answer.status}`,
    answer.status,
    headersOf(answer.headers),
  );
}

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/** The summary's text and usage from the provider's answer, in its dialect. */
function readSummary(dialect: WireDialect, text: string): SummaryResult {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw summaryError('the summary answer is not JSON', error);
  }
  const summary = dialect.answerText(parsed);
  if (summary.trim() === '') throw summaryError('the summary answer has no text');
  const usage = dialect.usageOf(parsed);
  const inputTokens = usage?.prompt_tokens ?? usage?.input_tokens;
  const outputTokens = usage?.output_tokens ?? usage?.completion_tokens;
  const cacheRead = usage?.cache_read_input_tokens ?? undefined;
  return {
    text: summary,
    usage: {
      ...(inputTokens === undefined ? {} : { inputTokens }),
      ...(outputTokens === undefined ? {} : { outputTokens }),
      ...(cacheRead === undefined ? {} : { cacheReadTokens: cacheRead }),
    },
  };
}

function summaryError(reason: string, cause?: unknown): CompactError {
  return new CompactError(`same summarizer: ${reason}`, {
    code: 'SUMMARY_FAILED',
    ...(cause === undefined ? {} : { cause }),
  });
}
