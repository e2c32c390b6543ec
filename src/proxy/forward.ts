/**
 * Sends one request upstream with `node:http`/`node:https` and streams the answer back as it
 * arrives: status, headers and every chunk pass through unchanged, with no buffering.
 */
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ProviderUsage } from '../core/conversation/types.js';

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
  // The proxy's own session header is for the proxy, not the provider.
  'x-agent-compact-session',
]);

/** Sockets are reused across requests: a new TCP (and TLS) handshake per request costs milliseconds. */
const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true });

/** What {@link forwardRequest} sends. */
export interface UpstreamRequest {
  url: URL;
  method: string;
  headers: IncomingHttpHeaders;
  /** The body to send, or the client's request stream to pipe as it is. */
  body: Buffer | IncomingMessage | undefined;
  /** Aborts the upstream request (the client went away). */
  signal?: AbortSignal;
}

/** Called with each chunk of the answer as it passes, and once when it ended. */
export interface AnswerObserver {
  head?(status: number, headers: IncomingHttpHeaders): void;
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
    }
  | { type: 'unreachable'; message: string }
  /** The client went away first: nothing more was sent upstream. */
  | { type: 'closed' };

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
 * Forwards the request and pipes the answer into `response`. Resolves when the answer ended (or
 * broke); an upstream that cannot be reached resolves as `unreachable` with nothing written, so the
 * caller answers 502 in the provider's shape. A connection that breaks mid-answer is broken for the
 * client too, as it would be without the proxy.
 */
export function forwardRequest(
  upstream: UpstreamRequest,
  response: ServerResponse,
  observer: AnswerObserver = {},
): Promise<ForwardOutcome> {
  return new Promise((resolve) => {
    // An abort listener on a signal that already fired never runs: check before sending anything.
    if (upstream.signal?.aborted) {
      resolve({ type: 'closed' });
      return;
    }
    const secure = upstream.url.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    const outgoing = send(upstream.url, {
      method: upstream.method,
      headers: upstreamHeaders(upstream.headers, Buffer.isBuffer(upstream.body) ? upstream.body : undefined),
      agent: secure ? httpsAgent : httpAgent,
    });
    // Small writes (an SSE event, a short answer) go out at once instead of waiting on Nagle.
    outgoing.setNoDelay(true);
    // The client went away: stop the upstream request too (cheaper than an AbortSignal per request).
    upstream.signal?.addEventListener('abort', () => outgoing.destroy(), { once: true });
    let answered = false;
    outgoing.on('response', (answer) => {
      answered = true;
      const status = answer.statusCode ?? 502;
      observer.head?.(status, answer.headers);
      response.writeHead(status, answer.statusMessage, responseHeaders(answer));
      answer.on('data', (chunk: Buffer) => {
        observer.chunk?.(chunk);
        response.write(chunk);
      });
      answer.on('end', () => {
        response.end();
        resolve({ type: 'answered', status, complete: true });
      });
      answer.on('error', () => {
        // The upstream broke mid-answer: break the client's connection the same way.
        response.destroy();
        resolve({ type: 'answered', status, complete: false });
      });
      answer.on('aborted', () => {
        response.destroy();
        resolve({ type: 'answered', status, complete: false });
      });
    });
    outgoing.on('error', (error) => {
      if (answered) return;
      resolve(
        upstream.signal?.aborted ? { type: 'closed' } : { type: 'unreachable', message: error.message },
      );
    });
    const body = upstream.body;
    if (body === undefined) outgoing.end();
    else if (Buffer.isBuffer(body)) outgoing.end(body);
    else body.pipe(outgoing);
  });
}

/** The answer's headers for the client, less hop-by-hop ones (node sets its own framing). */
function responseHeaders(answer: IncomingMessage): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || hopByHopHeaders.has(name)) continue;
    result[name] = value;
  }
  return result;
}
