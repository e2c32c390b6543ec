/**
 * What every request of one proxy shares, built once from {@link ProxyOptions}: the upstreams, the
 * one HTTP client, the session compactors and queue, the stats and the watchers.
 */

import type { CompactionEvent } from 'agent-compact';
import { CompactError } from 'agent-compact';
import { type HostPolicy, hostPolicy } from './access.js';
import type { ExchangeDependencies } from './conversation-exchange.js';
import { dashboardRoutes } from './dashboard/dashboard-routes.js';
import { ProxyMonitor } from './dashboard/monitor.js';
import { InFlightRequests } from './in-flight.js';
import { DEFAULT_MAX_MEMORY_BYTES, MemoryBudget } from './memory-budget.js';
import { createOverheadWarning } from './overhead-warning.js';
import type { OwnRouteHandler } from './own-routes.js';
import type { ProxyOptions } from './proxy-options.js';
import { formatLogLine, type ProxyRequestRecord, StatsCollector } from './proxy-stats.js';
import type { ProxyTracing } from './proxy-tracing.js';
import { countCacheBudget } from './request-tokens.js';
import type { ProxyUpstreams } from './routes.js';
import { rootSessionKey } from './session-branches.js';
import { SessionCompactors } from './session-compactors.js';
import { shortSessionId } from './session-identity.js';
import { createSessionQueue } from './session-queue.js';
import { SessionStates } from './session-state.js';
import { createMemoryProxySessionStore, type ProxySessionStore } from './session-store.js';
import { DEFAULT_MAX_BODY_BYTES } from './upstream/request-body.js';
import { createUpstreamClient, type UpstreamClient } from './upstream/upstream-client.js';

/** How long one exchange may take before the proxy gives up on the upstream (`--upstream-timeout`). */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 600_000;

/** What every request of one proxy shares. */
export interface ProxyContext {
  upstreams: ProxyUpstreams;
  /** The one HTTP client: forwarding, recall follow-ups and `same` summaries. */
  client: UpstreamClient;
  store: ProxySessionStore;
  compactors: SessionCompactors;
  /** The one byte budget of compactors, kept bodies, archives, subscribers and requests in flight (`--max-memory`). */
  budget: MemoryBudget;
  /** The requests whose bodies are read, admitted into the budget or waiting for room in it. */
  inFlight: InFlightRequests;
  queue: ReturnType<typeof createSessionQueue>;
  stats: StatsCollector;
  recall: boolean;
  notify: boolean;
  /** Guards every own route when set. */
  token: string | undefined;
  /** The `Host` values served and the origins trusted (`allowHosts`). */
  hosts: HostPolicy;
  /** Own routes beyond the stats (the dashboard's). */
  ownRoutes: OwnRouteHandler[];
  monitor: ProxyMonitor | undefined;
  tracing: ProxyTracing | undefined;
  upstreamTimeoutMs: number;
  /** Request bodies past this many bytes are answered 413 (`--max-body`). */
  maxBodyBytes: number;
  log: ((line: string) => void) | undefined;
  warnOverhead: ReturnType<typeof createOverheadWarning>;
  finish: (record: ProxyRequestRecord) => void;
}

/** The shared parts of a proxy started with `options`. */
export function createProxyContext({
  upstream,
  anthropicUpstream,
  openaiUpstream,
  geminiUpstream,
  thresholds,
  contextWindow,
  store: givenStore,
  recall = false,
  notify = false,
  dashboard = true,
  tracing,
  token,
  host = '127.0.0.1',
  allowHosts = [],
  log,
  onRequest,
  upstreamTimeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS,
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
  maxMemoryBytes = DEFAULT_MAX_MEMORY_BYTES,
  ...options
}: ProxyOptions): ProxyContext {
  const upstreams = resolveUpstreams(upstream, anthropicUpstream, openaiUpstream, geminiUpstream);
  assertBytes(maxBodyBytes, 'maxBodyBytes');
  assertBytes(maxMemoryBytes, 'maxMemoryBytes');
  // The counted texts' cache is held apart, within --max-memory: the budget is the rest.
  const countCache = countCacheBudget(maxMemoryBytes);
  const budget = new MemoryBudget(maxMemoryBytes - countCache.bytes);
  const store = givenStore ?? createMemoryProxySessionStore();
  const monitor = dashboard ? new ProxyMonitor() : undefined;
  const client = createUpstreamClient({ timeoutMs: upstreamTimeoutMs });
  const stats = new StatsCollector();
  const settings = {
    ...(thresholds ? { thresholds } : {}),
    ...(contextWindow === undefined ? {} : { contextWindow }),
  };
  return {
    upstreams,
    client,
    store,
    budget,
    inFlight: new InFlightRequests(budget),
    compactors: createCompactors(
      { ...options, ...settings, recall },
      {
        client,
        budget,
        states: new SessionStates((how) => stats.addBodyRead(how)),
        countCacheChars: countCache.chars,
      },
      [...(monitor ? [monitor] : []), ...(tracing ? [tracing] : [])],
      // The default store's state goes with an evicted compactor; a store of the caller's keeps it.
      givenStore ? undefined : (key) => void store.delete(key),
    ),
    queue: createSessionQueue(),
    stats,
    recall,
    notify,
    token,
    hosts: hostPolicy(host, allowHosts),
    ownRoutes: monitor
      ? [dashboardRoutes(monitor, async () => stats.snapshot(await store.size()), budget)]
      : [],
    monitor,
    tracing,
    upstreamTimeoutMs,
    maxBodyBytes,
    log,
    warnOverhead: createOverheadWarning({ ...settings, ...(log ? { log } : {}) }),
    finish: (record) => {
      stats.add(record);
      log?.(formatLogLine(record));
      onRequest?.(record);
    },
  };
}

/** Every session's compactor, its events handed to the dashboard and the tracing. */
function createCompactors(
  {
    thresholds,
    contextWindow,
    summarizer = 'same',
    archive,
    counter,
    stateStore,
    recall = false,
    background = false,
  }: ProxyOptions,
  shared: { client: UpstreamClient; budget: MemoryBudget; states: SessionStates; countCacheChars: number },
  watchers: { event(id: string, event: CompactionEvent): void }[],
  onEvict: ((sessionKey: string) => void) | undefined,
): SessionCompactors {
  return new SessionCompactors({
    ...(thresholds ? { thresholds } : {}),
    ...(contextWindow === undefined ? {} : { contextWindow }),
    summarizer,
    ...shared,
    ...(archive ? { archive } : {}),
    ...(counter ? { counter } : {}),
    ...(stateStore ? { stateStore } : {}),
    recall,
    background,
    ...(onEvict ? { onEvict } : {}),
    ...(watchers.length > 0
      ? {
          onEvent: (key: string, event: CompactionEvent) => {
            const id = shortSessionId(rootSessionKey(key));
            for (const watcher of watchers) watcher.event(id, event);
          },
        }
      : {}),
  });
}

/** Hands an exchange to the dashboard and the tracing; a failure there never reaches the agent. */
export function observeWith(
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

function assertBytes(value: number, path: string): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new CompactError(`must be a positive whole number of bytes, got ${value}`, {
      code: 'INVALID_OPTIONS',
      path,
    });
  }
}

function resolveUpstreams(
  upstream: string | undefined,
  anthropicUpstream: string | undefined,
  openaiUpstream: string | undefined,
  geminiUpstream: string | undefined,
): ProxyUpstreams {
  const anthropic = anthropicUpstream ?? upstream;
  const openai = openaiUpstream ?? upstream;
  const gemini = geminiUpstream ?? upstream;
  if (anthropic === undefined || openai === undefined) {
    throw new CompactError('startProxy needs upstream, or both anthropicUpstream and openaiUpstream', {
      code: 'INVALID_OPTIONS',
      path: 'upstream',
    });
  }
  return {
    anthropic: parseUpstream(anthropic, 'anthropicUpstream'),
    openai: parseUpstream(openai, 'openaiUpstream'),
    // Gemini goes to its own upstream, else where `upstream` points; never to the OpenAI upstream,
    // which would receive the client's Google key.
    gemini: gemini === undefined ? undefined : parseUpstream(gemini, 'geminiUpstream'),
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
