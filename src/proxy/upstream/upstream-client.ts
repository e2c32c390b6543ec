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
    send: (call) => dispatchCall(dispatcher, call),
    close: () => dispatcher.destroy(),
  };
}

/**
 * One call through undici's `dispatch`, the layer its `request` is built on: the answer's chunks go
 * straight into the body stream, and undici stops reading the socket while that stream is full. It
 * saves `request`'s promise and stream plumbing on the way to the first byte.
 */
function dispatchCall(dispatcher: Dispatcher, call: UpstreamCall): Promise<UpstreamAnswer> {
  const { url, method, headers, body, signal } = call;
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let answer: AnswerBody | undefined;
    const abort = () => controller?.abort(abortReason(signal));
    signal?.addEventListener('abort', abort, { once: true });
    const settle = () => signal?.removeEventListener('abort', abort);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (signal?.aborted) started.abort(abortReason(signal));
      },
      onResponseStart(started, status, answerHeaders) {
        // 1xx answers are informational; the final status follows.
        if (status < 200) return;
        answer = new AnswerBody(() => started.resume());
        resolve({ status, headers: answerHeaders, body: answer });
      },
      onResponseData(reading, chunk) {
        if (answer && !answer.push(chunk)) reading.pause();
      },
      onResponseEnd() {
        settle();
        answer?.push(null);
      },
      onResponseError(_controller, error) {
        settle();
        if (answer) answer.destroy(error);
        else reject(error);
      },
    };
    const options: Dispatcher.DispatchOptions = {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: method as Dispatcher.HttpMethod,
      headers: headers as Record<string, string | string[]>,
      body: body ?? null,
    };
    try {
      dispatcher.dispatch(options, handler);
    } catch (error) {
      settle();
      reject(error);
    }
  });
}

/** Why a call was aborted: the signal's reason when it is an error. */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('the request was aborted');
}

/** An answer's body: undici's chunks as a stream, read on demand (see {@link dispatchCall}). */
class AnswerBody extends Readable {
  constructor(private readonly resumeUpstream: () => void) {
    super();
  }

  override _read(): void {
    this.resumeUpstream();
  }

  /** The whole body as UTF-8 text. */
  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}
