/** What the proxy did: one record per request, a log line per record, and running totals. */
import type { CompactionLayer } from 'agent-compact';
import type { WireFormat } from 'agent-compact/wire';

/** One request as the proxy handled it. */
export interface ProxyRequestRecord {
  /** ISO time the request arrived. */
  time: string;
  /** A short hash of the session key; `-` for requests the proxy does not compact. */
  session: string;
  /** The compacted API, or `passthrough`. */
  api: WireFormat | 'passthrough';
  method: string;
  path: string;
  /**
   * Tokens of what the client sent: its whole request (system, tools, messages) as it came, by the
   * proxy's counter; 0 when not counted (a stateful passthrough, a body the reader refuses).
   */
  tokensIn: number;
  /** Tokens of what went upstream, counted the same way. */
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
  /**
   * Why a layer wrote without its model: the summarizer failed (after its retries) and the offline
   * fallback ran (the extractive summary; mid's notes cut to their first sentences). The compacted
   * request still went upstream; the core's `fallback-used` reason.
   */
  modelFallback?: string;
  /**
   * Why hard did not run on a request over the hard threshold: the circuit breaker held it back
   * (the last hard compaction left the request over mid, or even an empty summary would), so the
   * request went out larger than hard. The core's `circuit-breaker-open` event, with its sizes.
   */
  heldBack?: string;
  /** Why the request went upstream byte for byte without compaction (a stateful request). */
  passthrough?: string;
  /**
   * Why the session's state was not saved after the answer went out (`session store failed: …`):
   * the answer stands; the next request of the session starts from the state saved before.
   */
  stateNotSaved?: string;
  /** True when the client went away before the answer ended (nothing more was sent upstream). */
  clientClosed?: boolean;
  /**
   * True when the upstream's answer broke off after it started (its connection reset mid-stream):
   * the status is the one its first bytes carried, and the client's answer was broken off too.
   */
  answerBroken?: boolean;
  /**
   * The error the upstream streamed inside an answer it had started with a 2xx, as `name: message`
   * (Anthropic's `event: error`, `overloaded_error: Overloaded`): the client got it as sent.
   */
  streamError?: string;
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
  byApi: Record<WireFormat | 'passthrough', number>;
  tokensIn: number;
  tokensOut: number;
  /** Requests where compaction failed or its output was rejected, so the original went upstream. */
  fallbacks: number;
  /**
   * The fallbacks grouped by reason, most frequent first: `kind` is `rejected` (the compacted
   * request broke a provider rule; `reason` is its first problem's path and message) or `failed`
   * (the compaction threw).
   */
  fallbackReasons: FallbackReason[];
  /**
   * The input tokens as a prompt cache bills them, for what the clients sent and what went
   * upstream: a request that extends its session's previous one reads that one's tokens from the
   * cache and writes the rest; a request the proxy changed (or the first) writes all of it.
   */
  cache: { sent: CacheTokens; forwarded: CacheTokens };
  /** {@link ProxyStats.cache} by API: providers bill cache writes differently. */
  cacheByApi: Record<WireFormat, { sent: CacheTokens; forwarded: CacheTokens }>;
  /** Conversations whose history rewound or was compacted by the client. */
  restarts: number;
  /**
   * Answers with an upstream status of 400 or more, that broke off upstream or streamed an error, and
   * 502s for an unreachable upstream.
   */
  upstreamErrors: number;
  /**
   * Request bodies of 16 KiB or more to the compacted APIs: read from a recent body of the same
   * client and their own new bytes, or parsed whole.
   */
  bodies: { incremental: number; whole: number };
  /** Sessions kept in the store. */
  sessions: number;
}

/** One reason compactions fell back, and how many did. */
export interface FallbackReason {
  kind: 'rejected' | 'failed';
  /** e.g. `messages[1].role: role must be "user" or "assistant", got "system"`. */
  reason: string;
  count: number;
}

/** Input tokens read from the prompt cache and written to it. */
export interface CacheTokens {
  read: number;
  write: number;
}

function emptyCache(): { sent: CacheTokens; forwarded: CacheTokens } {
  return { sent: { read: 0, write: 0 }, forwarded: { read: 0, write: 0 } };
}

/** The cache figures of every API together. */
function sumOfCaches(caches: readonly { sent: CacheTokens; forwarded: CacheTokens }[]) {
  const total = emptyCache();
  for (const { sent, forwarded } of caches) {
    total.sent.read += sent.read;
    total.sent.write += sent.write;
    total.forwarded.read += forwarded.read;
    total.forwarded.write += forwarded.write;
  }
  return total;
}

/** Sessions whose previous sizes are kept for the cache figures; older ones count as new. */
const CACHE_SESSIONS = 1024;

/** The previous request's sizes of one session. */
interface PreviousSizes {
  sent: number;
  forwarded: number;
}

/** Running totals. */
export class StatsCollector {
  private readonly started = Date.now();
  private readonly previous = new Map<string, PreviousSizes>();
  private readonly totals: Omit<ProxyStats, 'startedAt' | 'uptimeMs' | 'sessions' | 'cache'> = {
    requests: 0,
    conversationRequests: 0,
    compactedRequests: 0,
    byLayer: { none: 0, micro: 0, mid: 0, hard: 0 },
    byApi: { anthropic: 0, openai: 0, responses: 0, gemini: 0, passthrough: 0 },
    tokensIn: 0,
    tokensOut: 0,
    fallbacks: 0,
    fallbackReasons: [],
    cacheByApi: {
      anthropic: emptyCache(),
      openai: emptyCache(),
      responses: emptyCache(),
      gemini: emptyCache(),
    },
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
      this.addCache({ ...record, api: record.api });
    }
    if (record.fallback) {
      totals.fallbacks += 1;
      addReason(totals.fallbackReasons, fallbackReasonOf(record.fallback));
    }
    if (record.restarted) totals.restarts += 1;
    const failed = record.status >= 400 || record.answerBroken || record.streamError !== undefined;
    if (failed && !record.clientClosed) totals.upstreamErrors += 1;
  }

  /**
   * Adds a request to the cache figures. The client's request extends its previous one unless the
   * history restarted; the forwarded one only when no layer changed it (a compaction rewrites the
   * prefix, so it is counted as written whole: the saving is not overstated).
   */
  private addCache(record: ProxyRequestRecord & { api: WireFormat }): void {
    const before = record.restarted ? undefined : this.previous.get(record.session);
    const sentRead = Math.min(before?.sent ?? 0, record.tokensIn);
    const forwardedRead = record.layer === 'none' ? Math.min(before?.forwarded ?? 0, record.tokensOut) : 0;
    const cache = this.totals.cacheByApi[record.api];
    cache.sent.read += sentRead;
    cache.sent.write += record.tokensIn - sentRead;
    cache.forwarded.read += forwardedRead;
    cache.forwarded.write += record.tokensOut - forwardedRead;
    this.previous.delete(record.session);
    this.previous.set(record.session, { sent: record.tokensIn, forwarded: record.tokensOut });
    if (this.previous.size > CACHE_SESSIONS) this.previous.delete(this.previous.keys().next().value!);
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
      cache: sumOfCaches(Object.values(this.totals.cacheByApi)),
      sessions,
    };
  }
}

/** The prefix of a rejected compaction's fallback, `compacted request rejected (LAYER): `. */
const REJECTED = /^compacted request rejected \((?:micro|mid|hard|none)\): /;
const FAILED = 'compaction failed: ';

/** A record's `fallback` as a reason to group by: its kind and the text without the layer. */
export function fallbackReasonOf(fallback: string): Omit<FallbackReason, 'count'> {
  const rejected = REJECTED.exec(fallback);
  if (rejected) return { kind: 'rejected', reason: fallback.slice(rejected[0].length) };
  return { kind: 'failed', reason: fallback.startsWith(FAILED) ? fallback.slice(FAILED.length) : fallback };
}

/** Counts one more fallback for `reason`, keeping the list most frequent first. */
function addReason(reasons: FallbackReason[], reason: Omit<FallbackReason, 'count'>): void {
  const known = reasons.find((entry) => entry.kind === reason.kind && entry.reason === reason.reason);
  if (known) known.count += 1;
  else if (reasons.length < MAX_FALLBACK_REASONS) reasons.push({ ...reason, count: 1 });
  reasons.sort((first, second) => second.count - first.count);
}

/** Distinct fallback reasons kept; a proxy whose fallbacks all differ does not grow without end. */
const MAX_FALLBACK_REASONS = 20;

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
        ? // Nothing was counted (a body the reader refuses, a stateful passthrough): no `0 → 0`.
          `uncounted ${record.layer}`
        : `${number(record.tokensIn)} → ${number(record.tokensOut)} tokens ${record.layer}`;
  const notes = [
    record.restarted ? 'restarted' : '',
    record.fallback ? `fallback: ${record.fallback}` : '',
    record.modelFallback ? `model fallback: ${record.modelFallback}` : '',
    record.heldBack ? `hard held back: ${record.heldBack}` : '',
    record.passthrough ? `passthrough: ${record.passthrough}` : '',
    record.stateNotSaved ? `state not saved: ${record.stateNotSaved}` : '',
    record.clientClosed ? 'client closed' : '',
    record.answerBroken ? 'answer broke off upstream' : '',
    record.streamError ? `stream error: ${record.streamError}` : '',
  ]
    .filter((note) => note !== '')
    .join('; ');
  return `${record.api} ${record.session} ${tokens} ${record.status} ${Math.round(record.ms)}ms${notes ? ` (${notes})` : ''}`;
}
