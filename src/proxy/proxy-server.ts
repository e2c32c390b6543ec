/**
 * The proxy's HTTP server (`node:http`, no framework): the three compacted APIs go through
 * {@link runExchange} one session at a time; every other path and method is piped upstream untouched.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CompactError } from '../core/errors.js';
import type { CompactionEvent } from '../core/events.js';
import { assertSafeBinding } from './access.js';
import { type ExchangeDependencies, runExchange, statefulReason } from './conversation-exchange.js';
import { countTokensPayload, isCountTokens } from './count-tokens.js';
import { dashboardRoutes } from './dashboard/dashboard-routes.js';
import { ProxyMonitor } from './dashboard/monitor.js';
import { forwardRequest } from './forward.js';
import { createOverheadWarning } from './overhead-warning.js';
import { isOwnPath, type OwnRouteHandler, serveOwnRoute, writeJson } from './own-routes.js';
import { errorSummary, writeProviderError } from './provider-errors.js';
import type { ProxyOptions, RunningProxy } from './proxy-options.js';
import { formatLogLine, type ProxyRequestRecord, StatsCollector } from './proxy-stats.js';
import type { ProxyTracing } from './proxy-tracing.js';
import { decodeRequestBody } from './request-encoding.js';
import { compactedApi, type ProxyUpstreams, providerOf, upstreamUrl } from './routes.js';
import { SessionCompactors } from './session-compactors.js';
import { sessionKeyOf, shortHash } from './session-identity.js';
import { createSessionQueue } from './session-queue.js';
import { createMemoryProxySessionStore, type ProxySessionStore } from './session-store.js';

/** The proxy's own endpoint; everything else belongs to the provider. */
export const STATS_PATH = '/agent-compact/stats';
/** How long one exchange may take before the proxy gives up on the upstream (`--upstream-timeout`). */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 600_000;
/** Live compactors kept in memory, matching the default session store. */
const MAX_LIVE_SESSIONS = 1000;

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
export async function startProxy({
  upstream,
  anthropicUpstream,
  openaiUpstream,
  geminiUpstream,
  host = '127.0.0.1',
  port = 0,
  thresholds,
  contextWindow,
  summarizer = 'same',
  recall = false,
  background = false,
  archive,
  counter,
  store = createMemoryProxySessionStore(),
  stateStore,
  log,
  onRequest,
  token,
  notify = false,
  dashboard = true,
  tracing,
  upstreamTimeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS,
}: ProxyOptions): Promise<RunningProxy> {
  assertSafeBinding(host, token);
  const monitor = dashboard ? new ProxyMonitor() : undefined;
  const watchers = [...(monitor ? [monitor] : []), ...(tracing ? [tracing] : [])];
  const compactors = new SessionCompactors({
    ...(thresholds ? { thresholds } : {}),
    ...(contextWindow === undefined ? {} : { contextWindow }),
    summarizer,
    ...(archive ? { archive } : {}),
    ...(counter ? { counter } : {}),
    ...(stateStore ? { stateStore } : {}),
    recall,
    background,
    maxSessions: MAX_LIVE_SESSIONS,
    ...(watchers.length > 0
      ? {
          onEvent: (key: string, event: CompactionEvent) => {
            const id = shortHash(key).slice(0, 8);
            for (const watcher of watchers) watcher.event(id, event);
          },
        }
      : {}),
  });
  const stats = new StatsCollector();
  const context: ProxyContext = {
    upstreams: resolveUpstreams(upstream, anthropicUpstream, openaiUpstream, geminiUpstream),
    store,
    compactors,
    queue: createSessionQueue(),
    stats,
    recall,
    notify,
    token,
    ownRoutes: monitor ? [dashboardRoutes(monitor, async () => stats.snapshot(await store.size()))] : [],
    monitor,
    tracing,
    upstreamTimeoutMs,
    warnOverhead: createOverheadWarning({
      ...(thresholds ? { thresholds } : {}),
      ...(contextWindow === undefined ? {} : { contextWindow }),
      ...(log ? { log } : {}),
    }),
    finish: (record) => {
      stats.add(record);
      log?.(formatLogLine(record));
      onRequest?.(record);
    },
  };
  // Exchanges in flight: `close` waits for them, so a session's last state save is never cut off.
  const inFlight = new Set<Promise<void>>();
  const server = createServer((incoming, response) => {
    const exchange = handleRequest(incoming, response, context).catch((error: unknown) => {
      // A client that left mid-request is not a proxy failure, and there is no one to answer.
      if (incoming.destroyed && response.destroyed) {
        log?.(`${pathOf(incoming)} client closed`);
        return;
      }
      const message = errorSummary(error);
      log?.(`proxy error: ${message}`);
      const provider = providerOf(pathOf(incoming), incoming.headers);
      writeProviderError(response, provider, 502, `agent-compact proxy failed: ${message}`);
    });
    inFlight.add(exchange);
    exchange.finally(() => inFlight.delete(exchange));
  });
  await listen(server, port, host);
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    stats: async () => stats.snapshot(await store.size()),
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }).then(async () => {
        await Promise.allSettled([...inFlight]);
      });
      return closed;
    },
  };
}

/** What every request of one proxy shares. */
interface ProxyContext {
  upstreams: ProxyUpstreams;
  store: ProxySessionStore;
  compactors: SessionCompactors;
  queue: ReturnType<typeof createSessionQueue>;
  stats: StatsCollector;
  recall: boolean;
  notify: boolean;
  /** Guards every own route when set. */
  token: string | undefined;
  /** Own routes beyond the stats (the dashboard's). */
  ownRoutes: OwnRouteHandler[];
  monitor: ProxyMonitor | undefined;
  tracing: ProxyTracing | undefined;
  upstreamTimeoutMs: number;
  warnOverhead: ReturnType<typeof createOverheadWarning>;
  finish: (record: ProxyRequestRecord) => void;
}

/** One request: the stats endpoint, a compacted exchange (in its session's order), or a passthrough. */
async function handleRequest(incoming: IncomingMessage, response: ServerResponse, context: ProxyContext) {
  const arrived = performance.now();
  const requestUrl = new URL(incoming.url ?? '/', 'http://proxy.invalid');
  const method = incoming.method ?? 'GET';
  if (isOwnPath(requestUrl.pathname)) return serveOwn(incoming, response, requestUrl, context);
  const provider = providerOf(requestUrl.pathname, incoming.headers);
  const target = upstreamUrl(context.upstreams[provider], `${requestUrl.pathname}${requestUrl.search}`);
  const aborter = new AbortController();
  const timeout = upstreamTimeout(aborter, context.upstreamTimeoutMs);
  response.on('close', () => {
    timeout.disarm();
    if (!response.writableFinished) aborter.abort();
  });
  const dependencies: ExchangeDependencies = {
    store: context.store,
    compactors: context.compactors,
    unreachable: (answer, message) =>
      writeProviderError(answer, provider, 502, `agent-compact proxy: upstream unreachable (${message})`),
    ...(context.monitor || context.tracing ? { observe: observeWith(context.monitor, context.tracing) } : {}),
  };
  const api = compactedApi(method, requestUrl.pathname);
  const counting = isCountTokens(method, requestUrl.pathname);
  const received = api === undefined && !counting ? undefined : await readBody(incoming);
  const decoded = received === undefined ? undefined : decodeRequestBody(received, incoming.headers);
  const plain = decoded?.type === 'identity' ? decoded : undefined;
  const body = plain === undefined ? undefined : parseObject(plain.raw);
  if (api === undefined || plain === undefined || body === undefined) {
    timeout.arm();
    const outcome = await forwardRequest(
      {
        url: target,
        method,
        headers: incoming.headers,
        body: await uncompactedBody(incoming, received, counting, requestUrl.pathname, context),
        signal: aborter.signal,
      },
      response,
    );
    if (outcome.type === 'unreachable') dependencies.unreachable(response, outcome.message);
    timeout.disarm();
    const record = passthroughRecord(method, requestUrl.pathname, outcome, arrived);
    if (decoded?.type === 'skipped') record.passthrough = decoded.reason;
    context.finish(
      timeout.timedOut ? timedOutRecord(record, response, provider, context.upstreamTimeoutMs) : record,
    );
    return;
  }
  // A stateful request carries only new items: no fixed overhead to judge the thresholds by.
  if (statefulReason(api, body) === undefined) context.warnOverhead(api, body);
  const sessionKey = sessionKeyOf(api, body, incoming.headers);
  const exchange = {
    api,
    sessionKey,
    method,
    target,
    headers: plain.headers,
    raw: plain.raw,
    body,
    response,
    signal: aborter.signal,
    arrived,
    recall: context.recall,
    notify: context.notify,
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

/** What an uncompacted request forwards: a count of what would be sent, the bytes read, or the stream. */
async function uncompactedBody(
  incoming: IncomingMessage,
  received: Buffer | undefined,
  counting: boolean,
  path: string,
  context: ProxyContext,
) {
  if (counting && received) {
    return countTokensPayload(received, incoming.headers, context.store, context.recall, path);
  }
  return received ?? (hasBody(incoming.method ?? 'GET') ? incoming : undefined);
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

/** Hands an exchange to the dashboard and the tracing; a failure there never reaches the agent. */
function observeWith(
  monitor: ProxyMonitor | undefined,
  tracing: ProxyTracing | undefined,
): NonNullable<ExchangeDependencies['observe']> {
  return (observation) => {
    monitor?.observe(observation).catch(() => undefined);
    try {
      tracing?.observe(observation);
    } catch {
      // Tracing is best effort.
    }
  };
}

function pathOf(incoming: IncomingMessage): string {
  return new URL(incoming.url ?? '/', 'http://proxy.invalid').pathname;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

function resolveUpstreams(
  upstream: string | undefined,
  anthropicUpstream: string | undefined,
  openaiUpstream: string | undefined,
  geminiUpstream: string | undefined,
): ProxyUpstreams {
  const anthropic = anthropicUpstream ?? upstream;
  const openai = openaiUpstream ?? upstream;
  if (anthropic === undefined || openai === undefined) {
    throw new CompactError('startProxy needs upstream, or both anthropicUpstream and openaiUpstream', {
      code: 'INVALID_OPTIONS',
      path: 'upstream',
    });
  }
  return {
    anthropic: parseUpstream(anthropic, 'anthropicUpstream'),
    openai: parseUpstream(openai, 'openaiUpstream'),
    // Gemini goes to its own upstream, else where `upstream` (or the OpenAI upstream) points.
    gemini: parseUpstream(geminiUpstream ?? upstream ?? openai, 'geminiUpstream'),
  };
}

function parseUpstream(value: string, path: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CompactError(`"${value}" is not a URL`, { code: 'INVALID_OPTIONS', path });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CompactError(`"${value}" must be an http or https URL`, { code: 'INVALID_OPTIONS', path });
  }
  return url;
}

function passthroughRecord(
  method: string,
  path: string,
  outcome: Awaited<ReturnType<typeof forwardRequest>>,
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

function readBody(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks)));
    incoming.on('error', reject);
  });
}

function parseObject(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
