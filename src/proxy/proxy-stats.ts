/** What the proxy did: one record per request, a log line per record, and running totals. */
import type { CompactionLayer } from '../core/events.js';
import type { ProxyApi } from './routes.js';

/** One request as the proxy handled it. */
export interface ProxyRequestRecord {
  /** ISO time the request arrived. */
  time: string;
  /** A short hash of the session key; `-` for requests the proxy does not compact. */
  session: string;
  /** The compacted API, or `passthrough`. */
  api: ProxyApi | 'passthrough';
  method: string;
  path: string;
  /** Tokens of the client's conversation (by the compactor's count); 0 when not counted. */
  tokensIn: number;
  /** Tokens sent upstream. */
  tokensOut: number;
  /** The strongest compaction layer that ran. */
  layer: CompactionLayer;
  /** The upstream's status, or 502 when it could not be reached. */
  status: number;
  /** Milliseconds from arrival to the end of the answer. */
  ms: number;
  /** Milliseconds the proxy spent before sending upstream (parsing, session lookup, compaction). */
  overheadMs: number;
  /** True when the client's history no longer extended what the proxy saw. */
  restarted?: boolean;
  /** Why the original request went upstream instead of a compacted one. */
  fallback?: string;
  /** Why the request went upstream byte for byte without compaction (a stateful request). */
  passthrough?: string;
  /** True when the client went away before the answer ended (nothing more was sent upstream). */
  clientClosed?: boolean;
}

/** Totals since the proxy started, served at `GET /agent-compact/stats`. */
export interface ProxyStats {
  startedAt: string;
  uptimeMs: number;
  requests: number;
  /** Requests whose conversation the proxy read (the three compacted APIs). */
  conversationRequests: number;
  /** Requests sent upstream in compacted form. */
  compactedRequests: number;
  byLayer: Record<CompactionLayer, number>;
  byApi: Record<ProxyApi | 'passthrough', number>;
  tokensIn: number;
  tokensOut: number;
  /** Requests where compaction failed or its output was rejected, so the original went upstream. */
  fallbacks: number;
  /** Conversations whose history rewound or was compacted by the client. */
  restarts: number;
  /** Answers with an upstream status of 400 or more, and 502s for an unreachable upstream. */
  upstreamErrors: number;
  /**
   * Request bodies of 16 KiB or more to the compacted APIs: read from a recent body of the same
   * client and their own new bytes, or parsed whole.
   */
  bodies: { incremental: number; whole: number };
  /** Sessions kept in the store. */
  sessions: number;
}

/** Running totals. */
export class StatsCollector {
  private readonly started = Date.now();
  private readonly totals: Omit<ProxyStats, 'startedAt' | 'uptimeMs' | 'sessions'> = {
    requests: 0,
    conversationRequests: 0,
    compactedRequests: 0,
    byLayer: { none: 0, micro: 0, mid: 0, hard: 0 },
    byApi: { anthropic: 0, openai: 0, responses: 0, gemini: 0, passthrough: 0 },
    tokensIn: 0,
    tokensOut: 0,
    fallbacks: 0,
    restarts: 0,
    upstreamErrors: 0,
    bodies: { incremental: 0, whole: 0 },
  };

  /** Adds one finished request. */
  add(record: ProxyRequestRecord): void {
    const totals = this.totals;
    totals.requests += 1;
    totals.byApi[record.api] += 1;
    if (record.api !== 'passthrough') {
      totals.conversationRequests += 1;
      totals.byLayer[record.layer] += 1;
      totals.tokensIn += record.tokensIn;
      totals.tokensOut += record.tokensOut;
      if (record.tokensOut < record.tokensIn) totals.compactedRequests += 1;
    }
    if (record.fallback) totals.fallbacks += 1;
    if (record.restarted) totals.restarts += 1;
    if (record.status >= 400 && !record.clientClosed) totals.upstreamErrors += 1;
  }

  /** Counts how a request body was read (`RecentBodies`). */
  addBodyRead(how: keyof ProxyStats['bodies']): void {
    this.totals.bodies[how] += 1;
  }

  /** A copy of the totals. */
  snapshot(sessions: number): ProxyStats {
    return {
      startedAt: new Date(this.started).toISOString(),
      uptimeMs: Date.now() - this.started,
      ...structuredClone(this.totals),
      sessions,
    };
  }
}

/**
 * The stderr line of a request, e.g.
 * `anthropic 3f2a9c1e 48,210 → 12,034 tokens mid 200 812ms`.
 */
export function formatLogLine(record: ProxyRequestRecord): string {
  const number = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const tokens =
    record.api === 'passthrough'
      ? `${record.method} ${record.path}`
      : record.tokensIn === 0 && record.tokensOut === 0
        ? // Nothing was counted (compaction failed, a stateful passthrough, the client left): no `0 → 0`.
          `uncounted ${record.layer}`
        : `${number(record.tokensIn)} → ${number(record.tokensOut)} tokens ${record.layer}`;
  const notes = [
    record.restarted ? 'restarted' : '',
    record.fallback ? `fallback: ${record.fallback}` : '',
    record.passthrough ? `passthrough: ${record.passthrough}` : '',
    record.clientClosed ? 'client closed' : '',
  ]
    .filter((note) => note !== '')
    .join('; ');
  return `${record.api} ${record.session} ${tokens} ${record.status} ${Math.round(record.ms)}ms${notes ? ` (${notes})` : ''}`;
}
