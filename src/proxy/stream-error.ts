/**
 * The error a provider streams inside an answer it started with a 2xx: Anthropic's `event: error`
 * (an `overloaded_error` mid-answer), the Responses `error` and `response.failed` events, a Chat or
 * Gemini chunk that holds an `error` object. The status line was a 200 by then, so without this the
 * request's record read as an answer that went well while the client got the error.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { isRecord } from 'agent-compact/internal';
import { type ForwardOutcome, forwardRequest, type UpstreamRequest } from './forward.js';
import { createSseReader, type SseMessage, type SseReader } from './upstream/sse-reader.js';

/** The error the event carries, as `name: message`; undefined for any other event. */
export function streamErrorOf(event: SseMessage): string | undefined {
  // Only events that name an error are parsed: a text delta's quotes are escaped (`\"error\"`).
  if (event.event !== 'error' && !event.data.includes('"error"')) return undefined;
  const data = parseObject(event.data);
  if (data === undefined)
    return event.event === 'error' ? event.data.slice(0, MAX_MESSAGE_LENGTH) : undefined;
  if (data.type === 'response.failed') {
    const response = asObject(data.response);
    return described(asObject(response?.error)) ?? 'response.failed';
  }
  const nested = asObject(data.error);
  if (nested) return described(nested) ?? 'error';
  return data.type === 'error' || event.event === 'error' ? (described(data) ?? 'error') : undefined;
}

/** Watches an answer's events (a usage tap's `onEvent`); `error` is the first error one carried. */
export function streamErrorWatch(): { onEvent(event: SseMessage): void; readonly error: string | undefined } {
  let error: string | undefined;
  return {
    onEvent(event) {
      error ??= streamErrorOf(event);
    },
    get error() {
      return error;
    },
  };
}

/**
 * Forwards an answer no usage tap reads (a request passed through as it came) like `forwardRequest`,
 * its outcome naming the error a 2xx event stream carried.
 */
export async function forwardWatchingErrors(
  upstream: UpstreamRequest,
  response: ServerResponse,
): Promise<ForwardOutcome> {
  const errors = streamErrorWatch();
  let reader: SseReader | undefined;
  const outcome = await forwardRequest(upstream, response, {
    head: (status, headers) => {
      if (isReadableEventStream(status, headers)) reader = createSseReader(errors.onEvent);
    },
    chunk: (chunk) => reader?.feed(chunk),
  });
  reader?.end();
  return withStreamError(outcome, errors.error);
}

/** The outcome with the error its answer streamed, if it streamed one. */
export function withStreamError(outcome: ForwardOutcome, error: string | undefined): ForwardOutcome {
  return outcome.type === 'answered' && error !== undefined ? { ...outcome, streamError: error } : outcome;
}

/** A 2xx event stream whose bytes can be read as they are (a compressed one cannot). */
function isReadableEventStream(status: number, headers: IncomingHttpHeaders): boolean {
  const encoding = headers['content-encoding'];
  return (
    status >= 200 &&
    status < 300 &&
    (encoding === undefined || encoding === 'identity') &&
    String(headers['content-type']).includes('text/event-stream')
  );
}

/** A streamed error's text is kept to this many characters on the record. */
const MAX_MESSAGE_LENGTH = 300;

/** `type`, `status` or `code`, then the message: `overloaded_error: Overloaded`. */
function described(error: Record<string, unknown> | undefined): string | undefined {
  if (error === undefined) return undefined;
  const name = [error.type, error.status, error.code].find(
    (value) => typeof value === 'string' && value !== '' && value !== 'error',
  );
  const message = typeof error.message === 'string' ? error.message : undefined;
  const text = [name, message].filter((part) => part !== undefined).join(': ');
  return text === '' ? undefined : text.slice(0, MAX_MESSAGE_LENGTH);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
