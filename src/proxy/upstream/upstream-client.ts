/**
 * The proxy's one HTTP client (undici): forwarding, recall follow-ups and `same` summaries all go
 * upstream through it, so they share its pooled keep-alive sockets and its timeouts. Bodies are
 * streams read on demand: nothing is read from the upstream faster than the client takes it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';

/**
 * Undici's own header and body timers sit this far past the exchange's (`--upstream-timeout`), so
 * the exchange's timer (a 504 in the provider's shape) fires first; they still end a call made
 * without an exchange signal, such as a background summary.
 */
const TIMER_GRACE_MS = 5_000;

/** One call upstream. */
export interface UpstreamCall {
  url: URL;
  method: string;
  headers: IncomingHttpHeaders;
  /** Bytes, text, or a stream sent as it is read (the client's own request body). */
  body?: Buffer | string | Readable | undefined;
  signal?: AbortSignal | undefined;
}

/** The upstream's answer, its body not yet read. */
export interface UpstreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The answer's bytes, read on demand (backpressure reaches the upstream socket). */
  body: Readable & { text(): Promise<string> };
}

/** Sends requests upstream. */
export interface UpstreamClient {
  /** Sends one call; rejects when the upstream cannot be reached or the call is aborted. */
  send(call: UpstreamCall): Promise<UpstreamAnswer>;
  /**
   * Closes the pooled sockets. A call still running (a background summary outlives its exchange)
   * is cut off instead of holding the proxy's `close` open.
   */
  close(): Promise<void>;
}

/** A client whose calls give up after `timeoutMs` without headers or between body chunks. */
export function createUpstreamClient({ timeoutMs }: { timeoutMs: number }): UpstreamClient {
  const dispatcher = new Agent({
    headersTimeout: timeoutMs + TIMER_GRACE_MS,
    bodyTimeout: timeoutMs + TIMER_GRACE_MS,
  });
  return {
    async send({ url, method, headers, body, signal }) {
      const answer = await request(url, {
        dispatcher,
        method: method as 'POST',
        headers: headers as Record<string, string | string[]>,
        ...(body === undefined ? {} : { body }),
        ...(signal ? { signal } : {}),
      });
      return {
        status: answer.statusCode,
        headers: answer.headers as IncomingHttpHeaders,
        body: answer.body as unknown as UpstreamAnswer['body'],
      };
    },
    close: () => dispatcher.destroy(),
  };
}
