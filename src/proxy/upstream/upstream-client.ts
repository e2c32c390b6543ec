/**
 * The proxy's one HTTP client (undici): forwarding, recall follow-ups and `same` summaries all go
 * upstream through it, so they share its pooled keep-alive sockets and its timeouts. Bodies are
 * streams read on demand: nothing is read from the upstream faster than the client takes it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';

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

/**
 * Where {@link UpstreamClient.relay} puts an answer as it arrives, with no stream in between: the
 * path of every forwarded request, so it is the shortest one from the upstream's bytes to the client.
 */
export interface AnswerSink {
  /** The status and headers, before any byte of the body; `reading` steers the rest. */
  head(status: number, headers: IncomingHttpHeaders, reading: AnswerReading): void;
  /** One chunk of the body; false when the sink is full (the upstream waits for `reading.resume`). */
  chunk(chunk: Buffer): boolean;
  /** Why the answer broke off after it started (the relay then resolves `broken`). */
  broken?(error: Error): void;
}

/** What a sink may do with the answer it is given. */
export interface AnswerReading {
  /** Reads the upstream again after `chunk` returned false. */
  resume(): void;
  /** Stops the answer: the relay resolves `broken`. */
  abort(reason: Error): void;
}

/** How a relayed answer ended: whole, or broken off (by either side, or an abort). */
export type RelayEnd = 'complete' | 'broken';

/** Sends requests upstream. */
export interface UpstreamClient {
  /** Sends one call; rejects when the upstream cannot be reached or the call is aborted. */
  send(call: UpstreamCall): Promise<UpstreamAnswer>;
  /**
   * Sends one call and hands its answer to `sink` as it arrives. Resolves when the answer ended;
   * rejects, with nothing given to the sink, when the upstream cannot be reached or the call is
   * aborted before the answer started.
   */
  relay(call: UpstreamCall, sink: AnswerSink): Promise<RelayEnd>;
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
    send: (call) => sendCall(dispatcher, call),
    relay: (call, sink) => relayCall(dispatcher, call, sink),
    close: () => dispatcher.destroy(),
  };
}

/**
 * One call through undici's `dispatch`, the layer its `request` is built on: each chunk goes to the
 * sink as undici reads it, and undici stops reading the socket while the sink is full.
 */
function relayCall(dispatcher: Dispatcher, call: UpstreamCall, sink: AnswerSink): Promise<RelayEnd> {
  const { url, method, headers, body, signal } = call;
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let started = false;
    const abort = () => controller?.abort(abortReason(signal));
    signal?.addEventListener('abort', abort, { once: true });
    const settle = () => signal?.removeEventListener('abort', abort);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(starting) {
        controller = starting;
        if (signal?.aborted) starting.abort(abortReason(signal));
      },
      onResponseStart(answering, status, answerHeaders) {
        // 1xx answers are informational; the final status follows.
        if (status < 200) return;
        started = true;
        sink.head(status, answerHeaders, {
          resume: () => answering.resume(),
          abort: (reason) => answering.abort(reason),
        });
      },
      onResponseData(reading, chunk) {
        if (!sink.chunk(chunk)) reading.pause();
      },
      onResponseEnd() {
        settle();
        resolve('complete');
      },
      onResponseError(_controller, error) {
        settle();
        if (!started) return reject(error);
        sink.broken?.(error);
        resolve('broken');
      },
    };
    try {
      dispatcher.dispatch(dispatchOptions(url, method, headers, body), handler);
    } catch (error) {
      settle();
      reject(error);
    }
  });
}

function dispatchOptions(
  url: URL,
  method: string,
  headers: IncomingHttpHeaders,
  body: UpstreamCall['body'],
): Dispatcher.DispatchOptions {
  return {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: method as Dispatcher.HttpMethod,
    headers: headers as Record<string, string | string[]>,
    body: body ?? null,
  };
}

/** A call whose answer body is a stream read on demand (recall follow-ups, `same` summaries). */
function sendCall(dispatcher: Dispatcher, call: UpstreamCall): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    let answer: AnswerBody | undefined;
    const sink: AnswerSink = {
      head(status, headers, reading) {
        answer = new AnswerBody(reading);
        resolve({ status, headers, body: answer });
      },
      chunk: (chunk) => answer?.push(chunk) ?? false,
      broken: (error) => answer?.destroy(error),
    };
    relayCall(dispatcher, call, sink).then((end) => {
      if (end === 'complete') answer?.push(null);
    }, reject);
  });
}

/** Why a call was aborted: the signal's reason when it is an error. */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('the request was aborted');
}

/** An answer's body: the upstream's chunks as a stream, read on demand (see {@link relayCall}). */
class AnswerBody extends Readable {
  constructor(private readonly reading: AnswerReading) {
    super();
  }

  override _read(): void {
    this.reading.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A reader that gives up (or breaks) stops the upstream too.
    if (!this.readableEnded) this.reading.abort(error ?? new Error('the answer body was destroyed'));
    callback(error);
  }

  /** The whole body as UTF-8 text. */
  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}
