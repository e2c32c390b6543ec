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
import type { WireFormat } from 'agent-compact/wire';
import { upstreamHeaders } from './forward.js';
import type { UpstreamClient } from './upstream/upstream-client.js';

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
      let status: number;
      let text: string;
      try {
        const answer = await client.send({
          url: call.url,
          method: 'POST',
          headers,
          body: JSON.stringify(call.body),
          signal: options.signal,
        });
        status = answer.status;
        text = await answer.body.text();
      } catch (error) {
        throw summaryError(`${context.url.origin} could not be reached`, error);
      }
      if (status < 200 || status >= 300) {
        throw summaryError(`${context.url.origin}${context.url.pathname} answered ${status}`);
      }
      return readSummary(dialect, text);
    },
  };
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
