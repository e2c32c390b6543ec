/**
 * The proxy's HTTP server (`node:http`, no framework): the three compacted APIs go through
 * {@link runExchange} one session at a time; every other path and method is streamed upstream
 * untouched. Request bodies past `--max-body` are answered 413 without being read.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WireFormat } from 'agent-compact/wire';
import { accessRefusal, assertSafeBinding } from './access.js';
import { readAdmittedBody } from './admitted-body.js';
import { statefulReason } from './as-sent.js';
import { checkProxyOptions } from './check-proxy-options.js';
import { type ExchangeDependencies, runExchange } from './conversation-exchange.js';
import { countTokensPayload, isCountTokens } from './count-tokens.js';
import { answerEndOf, type ForwardOutcome } from './forward.js';
import type { Admitted } from './in-flight.js';
import { isOwnPath, type OwnRouteHandler, serveOwnRoute, writeJson } from './own-routes.js';
import { errorSummary, writeProviderError } from './provider-errors.js';
import { createProxyContext, observeWith, type ProxyContext } from './proxy-context.js';
import type { ProxyOptions, RunningProxy } from './proxy-options.js';
import type { ProxyRequestRecord } from './proxy-stats.js';
import { type DecodedBody, decodeRequestBody } from './request-encoding.js';
import { compactedApi, providerOf, upstreamUrl } from './routes.js';
import { sessionKeyOf } from './session-identity.js';
import type { BodyRead } from './session-state.js';
import { forwardWatchingErrors } from './stream-error.js';
import { declaredTooLarge, limitedBody, writeTooLarge } from './upstream/request-body.js';

export { DEFAULT_UPSTREAM_TIMEOUT_MS } from './proxy-context.js';

/**
 * The `retry-after` of a 503 for a request that waited for memory: the requests ahead of it were
 * still in flight after a whole `--upstream-timeout`, so soon is not sooner; SDKs honour up to 60 s.
 */
const BUSY_RETRY_AFTER_SECONDS = 30;

/** Node's default `requestTimeout`: how long a client may take to send a whole request. */
const NODE_REQUEST_TIMEOUT_MS = 300_000;

/** The proxy's own endpoint; everything else belongs to the provider. */
export const STATS_PATH = '/agent-compact/stats';

/**
 * Starts the compaction proxy. Point an agent's base URL at `url`: requests to `POST /v1/messages`,
 * `POST /v1/chat/completions` and `POST /v1/responses` go upstream with their conversation
 * compacted; every other request is forwarded untouched, answers stream back as they arrive.
 *
 * @example
 * const proxy = await startProxy({ upstream: 'https://api.anthropic.com', thresholds: { mid: 60_000, hard: 100_000 } });
 * // ANTHROPIC_BASE_URL=<proxy.url> claude
 * await proxy.close();
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  checkProxyOptions(options);
  const { host = '127.0.0.1', port = 0 } = options;
  assertSafeBinding(host, options.token);
  const context = createProxyContext(options);
  // Exchanges in flight: `close` waits for them, so a session's last state save is never cut off.
  const inFlight = new Set<Promise<void>>();
  // A body may wait unread for memory for up to `--upstream-timeout`: Node's own limit on receiving
  // a whole request (300 s by default) starts after that wait, not within it.
  const requestTimeout = NODE_REQUEST_TIMEOUT_MS + context.upstreamTimeoutMs;
  const server = createServer({ requestTimeout }, (incoming, response) => {
    const exchange = handleRequest(incoming, response, context).catch((error: unknown) =>
      answerFailure(incoming, response, error, context),
    );
    inFlight.add(exchange);
    exchange.finally(() => inFlight.delete(exchange));
  });
  await listen(server, port, host);
  return runningProxy(server, context, inFlight);
}

/** The handle of a listening proxy: its address, its stats, and a close that waits for exchanges. */
function runningProxy(server: Server, context: ProxyContext, inFlight: Set<Promise<void>>): RunningProxy {
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    stats: async () => context.stats.snapshot(await context.store.size()),
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }).then(async () => {
        await Promise.allSettled([...inFlight]);
        await context.client.close();
      });
      return closed;
    },
  };
}

/** A request the proxy itself failed: 502 in the provider's shape, unless the client already left. */
function answerFailure(
  incoming: IncomingMessage,
  response: ServerResponse,
  error: unknown,
  context: ProxyContext,
) {
  // A client that left mid-request is not a proxy failure, and there is no one to answer.
  if (incoming.destroyed && response.destroyed) {
    context.log?.(`${pathOf(incoming)} client closed`);
    return;
  }
  const message = errorSummary(error);
  context.log?.(`proxy error: ${message}`);
  const url = urlOf(incoming);
  const provider = providerOf(url?.pathname ?? '/', incoming.headers, url?.searchParams);
  writeProviderError(response, provider, 502, `agent-compact proxy failed: ${message}`);
}

/** One request as the proxy sees it, before its body is read. */
interface ProxyRequest {
  incoming: IncomingMessage;
  response: ServerResponse;
  method: string;
  url: URL;
  provider: ReturnType<typeof providerOf>;
  target: URL;
  arrived: number;
  signal: AbortSignal;
  timeout: ReturnType<typeof upstreamTimeout>;
}

/** One request: the stats endpoint, a compacted exchange (in its session's order), or a passthrough. */
async function handleRequest(incoming: IncomingMessage, response: ServerResponse, context: ProxyContext) {
  const arrived = performance.now();
  const url = urlOf(incoming);
  const method = incoming.method ?? 'GET';
  if (url === undefined) {
    // A request line no URL parser reads (`GET //[x`): nothing to route, so no provider's shape.
    response
      .writeHead(400, { 'content-type': 'text/plain' })
      .end('agent-compact proxy: malformed request URL\n');
    return;
  }
  const refusal = accessRefusal(incoming.headers, context.hosts);
  if (refusal !== undefined) return refuse(incoming, response, url, refusal, context);
  if (isOwnPath(url.pathname)) return serveOwn(incoming, response, url, context);
  const provider = providerOf(url.pathname, incoming.headers, url.searchParams);
  const upstream = context.upstreams[provider];
  if (upstream === undefined) return refuse(incoming, response, url, NO_GEMINI_UPSTREAM, context, 404);
  const target = upstreamUrl(upstream, `${url.pathname}${url.search}`);
  const aborter = new AbortController();
  const timeout = upstreamTimeout(aborter, context.upstreamTimeoutMs);
  response.on('close', () => {
    timeout.disarm();
    if (!response.writableFinished) aborter.abort();
  });
  const request: ProxyRequest = {
    ...{ incoming, response, method, url, provider, target, arrived, timeout },
    signal: aborter.signal,
  };
  if (declaredTooLarge(incoming, context.maxBodyBytes)) return refuseTooLarge(request, context);
  const api = compactedApi(method, url.pathname);
  const counting = isCountTokens(method, url.pathname);
  if (api === undefined && !counting) {
    return forwardUncompacted(request, { received: undefined, decoded: undefined, counting }, context);
  }
  const admitted = await readAdmitted(request, context);
  if (admitted === undefined) return;
  try {
    await handleBody(request, { api, counting, ...admitted }, context);
  } finally {
    admitted.admission?.release();
  }
}

/** A read body: compacted in its session's order, or forwarded as it is when no reader takes it. */
async function handleBody(
  request: ProxyRequest,
  { api, counting, received, admission }: ReadBody & { api: WireFormat | undefined; counting: boolean },
  context: ProxyContext,
) {
  if (received === 'too-large') return refuseTooLarge(request, context);
  const { headers } = request.incoming;
  const decoded = decodeRequestBody(received, headers, context.maxBodyBytes);
  const plain = decoded.type === 'identity' ? decoded : undefined;
  // A compressed body is parsed at its decoded size.
  if (plain) admission?.grow(plain.raw.length);
  const read =
    plain === undefined || api === undefined
      ? undefined
      : context.compactors.states.read(api, plain.raw, headers, request.url);
  if (api === undefined || plain === undefined || read === undefined) {
    return forwardUncompacted(request, { received, decoded, counting }, context);
  }
  return compactExchange(request, { api, plain, read }, context);
}

/** A body the proxy reads whole, and its reservation in `--max-memory` (none past `--max-body`). */
interface ReadBody {
  received: Buffer | 'too-large';
  admission: Admitted | undefined;
}

/**
 * Reads a body the proxy parses within `--max-memory` (`admitted-body.ts`): a body of declared length
 * waits for room unread, in the socket. Undefined when it was dropped or answered instead.
 */
async function readAdmitted(request: ProxyRequest, context: ProxyContext): Promise<ReadBody | undefined> {
  const read = await readAdmittedBody(request.incoming, context.maxBodyBytes, (bytes) =>
    admit(request, bytes, context),
  );
  if (read?.type !== 'closed') return read;
  const outcome: ForwardOutcome = { type: 'closed' };
  context.finish(passthroughRecord(request.method, request.url.pathname, outcome, request.arrived));
  return undefined;
}

/**
 * Waits for room for a body of `bodyBytes`; held until the answer is done or the client goes away.
 * A client gone while waiting is dropped unsent; a wait past `--upstream-timeout` is answered 503.
 */
async function admit(request: ProxyRequest, bodyBytes: number, context: ProxyContext) {
  const { response, signal } = request;
  const { inFlight } = context;
  const onWait = () =>
    context.log?.(
      `${request.method} ${request.url.pathname} waits for memory (--max-memory): ${inFlight.size} in flight, ${inFlight.queued} ahead`,
    );
  const admission = await inFlight.admit(bodyBytes, { signal, timeoutMs: context.upstreamTimeoutMs, onWait });
  switch (admission.type) {
    case 'admitted':
      response.once('close', admission.release);
      return admission;
    case 'closed':
      context.finish(passthroughRecord(request.method, request.url.pathname, admission, request.arrived));
      return undefined;
    case 'timed-out':
      refuseBusy(request, context);
      return undefined;
    default: {
      const unknown: never = admission;
      throw new Error(`unknown admission ${JSON.stringify(unknown)}`);
    }
  }
}

/** A request that found no room in `--max-memory` within `--upstream-timeout`: 503, retry later. */
function refuseBusy(request: ProxyRequest, context: ProxyContext) {
  const { response, provider } = request;
  const reason = `waited ${context.upstreamTimeoutMs} ms for memory (--max-memory) behind the requests in flight`;
  response.setHeader('retry-after', String(BUSY_RETRY_AFTER_SECONDS));
  writeProviderError(response, provider, 503, `agent-compact proxy: ${reason}`);
  const outcome: ForwardOutcome = { type: 'answered', status: 503, complete: true };
  const record = passthroughRecord(request.method, request.url.pathname, outcome, request.arrived);
  context.finish({ ...record, fallback: reason });
}

/** Gemini traffic with no Gemini upstream: its key must not go to another provider's. */
const NO_GEMINI_UPSTREAM =
  'this proxy has no Gemini upstream (start it with --gemini-upstream URL or --upstream URL); ' +
  'Gemini requests are not sent to the OpenAI upstream';

/**
 * A request the proxy does not serve, nothing read or forwarded: 403 from a host or page it does
 * not serve, 404 for a provider it has no upstream for.
 */
function refuse(
  incoming: IncomingMessage,
  response: ServerResponse,
  url: URL,
  reason: string,
  context: ProxyContext,
  status = 403,
): void {
  const message = `agent-compact: ${reason}`;
  context.log?.(`${incoming.method ?? 'GET'} ${url.pathname} refused: ${reason}`);
  if (isOwnPath(url.pathname)) writeJson(response, status, { error: message });
  else
    writeProviderError(
      response,
      providerOf(url.pathname, incoming.headers, url.searchParams),
      status,
      message,
    );
}

/** A body past `--max-body`: 413 in the provider's shape, the rest of it never read. */
function refuseTooLarge(request: ProxyRequest, context: ProxyContext) {
  writeTooLarge(request.response, request.provider, context.maxBodyBytes);
  const outcome: ForwardOutcome = { type: 'answered', status: 413, complete: true };
  context.finish(passthroughRecord(request.method, request.url.pathname, outcome, request.arrived));
}

/** Forwards a request no layer compacts: a passthrough path, `count_tokens`, or a body it cannot read. */
async function forwardUncompacted(
  request: ProxyRequest,
  read: { received: Buffer | undefined; decoded: DecodedBody | undefined; counting: boolean },
  context: ProxyContext,
) {
  const { incoming, response, provider, timeout } = request;
  const streamed =
    read.received === undefined && hasBody(request.method)
      ? limitedBody(incoming, context.maxBodyBytes)
      : undefined;
  timeout.arm();
  const outcome = await forwardWatchingErrors(
    {
      client: context.client,
      url: request.target,
      method: request.method,
      headers: incoming.headers,
      body: streamed?.stream ?? (await uncompactedBody(request, read.received, read.counting, context)),
      signal: request.signal,
    },
    response,
  );
  timeout.disarm();
  if (outcome.type === 'unreachable' && streamed?.exceeded()) return refuseTooLarge(request, context);
  if (outcome.type === 'unreachable') unreachable(response, provider, outcome.message);
  // As on a compacted request; one past --upstream-timeout aborted too, and `timedOutRecord` says so instead.
  const clientLeft = request.signal.aborted;
  const record = {
    ...passthroughRecord(request.method, request.url.pathname, outcome, request.arrived),
    ...(clientLeft ? { clientClosed: true } : {}),
    ...answerEndOf(outcome, clientLeft),
  };
  if (read.decoded?.type === 'skipped') record.passthrough = read.decoded.reason;
  context.finish(
    timeout.timedOut ? timedOutRecord(record, response, provider, context.upstreamTimeoutMs) : record,
  );
}

/** A compacted API's request, run in its session's order. */
async function compactExchange(
  request: ProxyRequest,
  { api, plain, read }: { api: WireFormat; plain: DecodedBody & { type: 'identity' }; read: BodyRead },
  context: ProxyContext,
) {
  const { body } = read;
  const { incoming, response, provider, timeout } = request;
  const dependencies: ExchangeDependencies = {
    store: context.store,
    compactors: context.compactors,
    unreachable: (answer, message) => unreachable(answer, provider, message),
    ...(context.monitor || context.tracing ? { observe: observeWith(context.monitor, context.tracing) } : {}),
  };
  // A stateful request carries only new items: no fixed overhead to judge the thresholds by.
  if (statefulReason(api, body) === undefined) context.warnOverhead(api, body);
  const sessionKey = sessionKeyOf(api, body, incoming.headers, request.url);
  const exchange = {
    api,
    sessionKey,
    method: request.method,
    target: request.target,
    headers: plain.headers,
    raw: plain.raw,
    body,
    read,
    response,
    signal: request.signal,
    arrived: request.arrived,
    recall: context.recall,
    notify: context.notify,
    client: context.client,
  };
  const record = await context.queue.run(sessionKey, () => {
    timeout.arm();
    return runExchange(exchange, dependencies);
  });
  timeout.disarm();
  context.finish(
    timeout.timedOut ? timedOutRecord(record, response, provider, context.upstreamTimeoutMs) : record,
  );
}

function unreachable(response: ServerResponse, provider: ReturnType<typeof providerOf>, message: string) {
  writeProviderError(response, provider, 502, `agent-compact proxy: upstream unreachable (${message})`);
}

/** What an uncompacted request forwards when its body was read: a count of what would be sent, or the bytes. */
async function uncompactedBody(
  request: ProxyRequest,
  received: Buffer | undefined,
  counting: boolean,
  context: ProxyContext,
) {
  if (counting && received) {
    const { incoming, url } = request;
    return countTokensPayload(received, incoming.headers, context.store, url.pathname, url);
  }
  return received;
}

/** The proxy's own routes: the stats, then the dashboard's; all behind the token when one is set. */
async function serveOwn(
  incoming: IncomingMessage,
  response: ServerResponse,
  url: URL,
  context: ProxyContext,
) {
  const stats: OwnRouteHandler = async (_incoming, answer, routeUrl) => {
    if (incoming.method !== 'GET' || routeUrl.pathname !== STATS_PATH) return false;
    writeJson(answer, 200, context.stats.snapshot(await context.store.size()));
    return true;
  };
  await serveOwnRoute(incoming, response, url, {
    token: context.token,
    handlers: [stats, ...context.ownRoutes],
  });
}

/**
 * Gives up on a stalled upstream after `timeoutMs`, so it frees its session's queue. Armed when the
 * exchange starts, not while it waits behind its session.
 */
function upstreamTimeout(aborter: AbortController, timeoutMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const state = {
    timedOut: false,
    arm() {
      timer = setTimeout(() => {
        state.timedOut = true;
        aborter.abort();
      }, timeoutMs);
    },
    disarm() {
      clearTimeout(timer);
    },
  };
  return state;
}

/** Answers 504 in the provider's shape (or breaks an answer already started) after the timeout. */
function timedOutRecord(
  record: ProxyRequestRecord,
  response: ServerResponse,
  provider: ReturnType<typeof providerOf>,
  timeoutMs: number,
): ProxyRequestRecord {
  const { clientClosed: _closed, ...rest } = record;
  if (response.headersSent) response.destroy();
  else
    writeProviderError(
      response,
      provider,
      504,
      `agent-compact proxy: upstream timeout after ${timeoutMs} ms`,
    );
  return { ...rest, status: 504, fallback: `upstream timeout after ${timeoutMs} ms` };
}

/** The request's URL, or undefined when its request line holds none a URL parser reads. */
function urlOf(incoming: IncomingMessage): URL | undefined {
  const raw = incoming.url ?? '/';
  return URL.canParse(raw, 'http://proxy.invalid') ? new URL(raw, 'http://proxy.invalid') : undefined;
}

function pathOf(incoming: IncomingMessage): string {
  return urlOf(incoming)?.pathname ?? '/';
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

function passthroughRecord(
  method: string,
  path: string,
  outcome: ForwardOutcome,
  arrived: number,
): ProxyRequestRecord {
  const ms = performance.now() - arrived;
  return {
    time: new Date().toISOString(),
    session: '-',
    api: 'passthrough',
    method,
    path,
    tokensIn: 0,
    tokensOut: 0,
    layer: 'none',
    status: outcome.type === 'answered' ? outcome.status : outcome.type === 'closed' ? 499 : 502,
    ms,
    overheadMs: 0,
    ...(outcome.type === 'closed' ? { clientClosed: true } : {}),
  };
}

function hasBody(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}
