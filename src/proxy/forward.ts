/**
 * Sends one request upstream through the proxy's {@link UpstreamClient} and streams the answer back
 * as it arrives: status, headers and every chunk pass through unchanged, with no buffering.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { ProviderUsage } from 'agent-compact';
import type { ProxyRequestRecord } from './proxy-stats.js';
import type { AnswerReading, AnswerSink, RelayEnd, UpstreamClient } from './upstream/upstream-client.js';

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1). */
const hopByHopHeaders = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  // Node's server already answered `100-continue`; the upstream gets the whole body at once.
  'expect',
  // The proxy's own session header is for the proxy, not the provider.
  'x-agent-compact-session',
]);

/** What {@link forwardRequest} sends. */
export interface UpstreamRequest {
  /** The proxy's one HTTP client (pooled keep-alive sockets, its timeouts). */
  client: UpstreamClient;
  url: URL;
  method: string;
  headers: IncomingHttpHeaders;
  /** The body to send, or the client's request stream to send as it is read. */
  body: Buffer | Readable | undefined;
  /** Aborts the upstream request (the client went away). */
  signal?: AbortSignal;
}

/** What a reader of the answer (the usage tap) hears of it, always after the client got it. */
export interface AnswerObserver {
  /** The answer's status and headers: once, after its first chunk went to the client (or at its end). */
  head?(status: number, headers: IncomingHttpHeaders): void;
  /** Each chunk, after it went to the client. */
  chunk?(chunk: Buffer): void;
}

/** How a forwarded request ended. */
export type ForwardOutcome =
  | {
      type: 'answered';
      status: number;
      complete: boolean;
      /** The usage of the answer, when the forwarder read it itself (the recall path does). */
      usage?: ProviderUsage;
      /**
       * After recall rounds the client never saw: what the model's history holds past the request's
       * conversation (the rounds, then the answer as the client got it).
       */
      recalled?: unknown[];
      /** The error the upstream streamed inside the answer after its 2xx status (`stream-error.ts`). */
      streamError?: string;
    }
  | { type: 'unreachable'; message: string }
  /** The client went away first: nothing more was sent upstream. */
  | { type: 'closed' };

/**
 * What a request's record says of how its answer ended, on every path that relays one: broken off
 * upstream after it started (not when the client left, which broke it too), or carrying an error the
 * upstream streamed after a 2xx. Either read as a plain 200 before.
 */
export function answerEndOf(
  outcome: ForwardOutcome,
  clientLeft: boolean,
): Pick<ProxyRequestRecord, 'answerBroken' | 'streamError'> {
  if (outcome.type !== 'answered') return {};
  return {
    ...(!outcome.complete && !clientLeft ? { answerBroken: true } : {}),
    ...(outcome.streamError ? { streamError: outcome.streamError } : {}),
  };
}

/** The request headers to send upstream: the client's, less hop-by-hop ones, with a new length. */
export function upstreamHeaders(headers: IncomingHttpHeaders, body: Buffer | undefined): IncomingHttpHeaders {
  const result: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopByHopHeaders.has(name)) continue;
    result[name] = value;
  }
  if (body !== undefined) {
    result['content-length'] = String(body.length);
    delete result['transfer-encoding'];
  }
  return result;
}

/**
 * Forwards the request and streams the answer into `response`, reading the upstream only as fast
 * as the client takes it. Resolves when the answer ended (or broke); an upstream that cannot be
 * reached resolves as `unreachable` with nothing written, so the caller answers 502 in the
 * provider's shape. A connection that breaks mid-answer is broken for the client too, as it would
 * be without the proxy.
 */
export async function forwardRequest(
  upstream: UpstreamRequest,
  response: ServerResponse,
  observer: AnswerObserver = {},
): Promise<ForwardOutcome> {
  const { client, signal } = upstream;
  // Nothing is sent for a client that already left.
  if (signal?.aborted) return { type: 'closed' };
  const relay = clientRelay(response, observer);
  let end: RelayEnd;
  try {
    end = await client.relay(
      {
        url: upstream.url,
        method: upstream.method,
        headers: upstreamHeaders(
          upstream.headers,
          Buffer.isBuffer(upstream.body) ? upstream.body : undefined,
        ),
        body: upstream.body,
        signal,
      },
      relay.sink,
    );
  } catch (error) {
    if (signal?.aborted) return { type: 'closed' };
    return { type: 'unreachable', message: error instanceof Error ? error.message : String(error) };
  }
  return { type: 'answered', status: relay.status(), complete: relay.finish(end) };
}

/**
 * The sink that copies an answer to the client as it arrives: the status and headers, then each
 * chunk, written before `observer.chunk` reads it (the usage tap), so reading never delays the
 * client's bytes; `observer.head` too is told only once the first bytes are on their way. Whenever
 * the client's socket buffer is full the upstream waits, so a slow client holds the upstream back
 * instead of filling the proxy's memory. `finish` ends the client's answer, or breaks it when the
 * upstream's broke (true when it ended whole).
 */
function clientRelay(response: ServerResponse, observer: AnswerObserver = {}) {
  let status = 0;
  let answerHeaders: IncomingHttpHeaders = {};
  let observed = false;
  let reading: AnswerReading | undefined;
  // The observer hears of the answer once its first bytes are on their way (or once it ended).
  const observeHead = () => {
    if (observed) return;
    observed = true;
    observer.head?.(status, answerHeaders);
  };
  // A client that left takes no writes: read on to the end (or the abort) without waiting.
  const resume = () => reading?.resume();
  const sink: AnswerSink = {
    head(answerStatus, headers, control) {
      status = answerStatus;
      answerHeaders = headers;
      reading = control;
      response.writeHead(answerStatus, responseHeaders(headers));
      response.on('drain', resume);
      response.on('close', resume);
    },
    chunk(chunk) {
      const taken = response.write(chunk) || response.destroyed;
      // Node holds a write until the next tick to batch it; the first one (the headers with the
      // first bytes) goes out now, before anything reads it.
      if (!observed) {
        response.socket?.uncork();
        observeHead();
      }
      try {
        observer.chunk?.(chunk);
      } catch (error) {
        reading?.abort(error instanceof Error ? error : new Error(String(error)));
      }
      return taken;
    },
  };
  return {
    sink,
    status: () => status,
    finish(end: RelayEnd): boolean {
      observeHead();
      response.off('drain', resume);
      response.off('close', resume);
      if (end === 'broken' || response.destroyed) {
        response.destroy();
        return false;
      }
      response.end();
      return true;
    },
  };
}

/** Resolves once the client's socket takes writes again, or the client is gone. */
export function drained(response: ServerResponse): Promise<void> {
  if (response.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/** The answer's headers for the client, less hop-by-hop ones (node sets its own framing). */
function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopByHopHeaders.has(name)) continue;
    result[name] = value;
  }
  return result;
}
