/**
 * What the dashboard shows, kept in memory per session: each request's figures, each compaction
 * (layer, before → after, time, cost, summary, archived ids), and listeners for live updates.
 * Only figures and archived content are kept; request headers (and so keys) never are.
 */
import type { ArchiveStore, CompactionEvent, CompactionLayer, ProviderUsage } from 'agent-compact';
import { defaultPriceTable } from '../price-table.js';
import type { ProxyRequestRecord } from '../proxy-stats.js';
import type { RequestCompaction } from '../request-compactor.js';

/** Sessions the dashboard keeps; the oldest go first. */
const MAX_SESSIONS = 200;
/** Requests kept per session for the chart. */
const MAX_REQUESTS = 2000;
/** Compactions kept per session for the timeline (each may hold a summary); the oldest go first. */
export const MAX_COMPACTIONS = 200;

/** One request on the chart. */
export interface MonitoredRequest {
  time: string;
  tokensIn: number;
  tokensOut: number;
  layer: CompactionLayer;
  status: number;
  ms: number;
  cacheRead: number;
  cacheWrite: number;
  /** Why the client's request went upstream instead of the compacted one (the record's `fallback`). */
  fallback?: string;
  /** Why the session's state was not saved after the answer (the record's `stateNotSaved`). */
  stateNotSaved?: string;
  /** The upstream's answer broke off after it started (the record's `answerBroken`). */
  answerBroken?: boolean;
  /** The error the upstream streamed after its 2xx (the record's `streamError`). */
  streamError?: string;
}

/** One compaction on the timeline. */
export interface MonitoredCompaction {
  time: string;
  layer: Exclude<CompactionLayer, 'none'>;
  tokensBefore: number;
  tokensAfter: number;
  durationMs: number;
  /** Dollars the summary call cost, at the default price table; 0 without a summary call. */
  costUsd: number;
  /** The summary that stood in for older messages (hard layer). */
  summary?: string;
  /** Archive ids of what left the context. */
  archived: string[];
}

/** One session as the dashboard shows and exports it. */
export interface MonitoredSession {
  id: string;
  agent: string;
  model: string;
  api: string;
  requests: MonitoredRequest[];
  compactions: MonitoredCompaction[];
}

/**
 * What changed in a session with one finished request, as `/agent-compact/events` sends it: the
 * session's fields, the new request and the new compaction if there was one (never the lists).
 */
export interface SessionUpdate extends Omit<MonitoredSession, 'requests' | 'compactions'> {
  request: MonitoredRequest;
  /** How many requests the session holds now: a page that counts fewer missed an event and reads it again. */
  requestCount: number;
  compaction?: MonitoredCompaction;
}

/** What one finished exchange tells the monitor. */
export interface ExchangeObservation {
  record: ProxyRequestRecord;
  model: string | undefined;
  agent: string | undefined;
  usage: ProviderUsage | undefined;
  compaction: RequestCompaction | undefined;
  archive: ArchiveStore;
  archiveSessionId: string;
}

interface SessionEntry {
  session: MonitoredSession;
  archive: ArchiveStore;
  /** The archive of the session's current history (a restart starts a new one, ids from `r1` again). */
  archiveSessionId: string;
  /** The archive each compaction's item was shown from: a reused id names the newest item. */
  itemArchives: Map<string, string>;
}

/** Sessions by short id, with listeners told the id of each session that changed. */
export class ProxyMonitor {
  private readonly sessions = new Map<string, SessionEntry>();
  private readonly pendingBySession = new Map<string, CompactionEvent[]>();
  private readonly listeners = new Set<(update: SessionUpdate) => void>();

  /** A compactor event of `sessionId`, joined to its request when the request finishes. */
  event(sessionId: string, event: CompactionEvent): void {
    const pending = this.pendingBySession.get(sessionId) ?? [];
    pending.push(event);
    this.pendingBySession.set(sessionId, pending);
  }

  /** Records a finished exchange and tells the listeners. */
  async observe(observation: ExchangeObservation): Promise<void> {
    const { record } = observation;
    const entry = this.entryOf(observation);
    entry.archive = observation.archive;
    entry.archiveSessionId = observation.archiveSessionId;
    const events = this.pendingBySession.get(record.session) ?? [];
    this.pendingBySession.delete(record.session);
    const request = requestOf(record, observation.usage);
    entry.session.requests.push(request);
    if (entry.session.requests.length > MAX_REQUESTS) entry.session.requests.shift();
    const compaction = observation.compaction;
    const added =
      compaction && compaction.layer !== 'none' && !record.fallback
        ? await compactionOf(record, compaction, events, entry)
        : undefined;
    if (added) keepCompaction(entry, added);
    const { requests: _requests, compactions: _compactions, ...fields } = entry.session;
    const update: SessionUpdate = {
      ...fields,
      request,
      requestCount: entry.session.requests.length,
      ...(added ? { compaction: added } : {}),
    };
    for (const listener of this.listeners) listener(update);
  }

  /** Every session, newest last, without their requests (for the list). */
  list(): Omit<MonitoredSession, 'requests' | 'compactions'>[] {
    return [...this.sessions.values()].map(({ session }) => ({
      id: session.id,
      agent: session.agent,
      model: session.model,
      api: session.api,
    }));
  }

  /** Every session in full. */
  all(): MonitoredSession[] {
    return [...this.sessions.values()].map((entry) => entry.session);
  }

  session(id: string): MonitoredSession | undefined {
    return this.sessions.get(id)?.session;
  }

  /** An archived item of a session, in full. */
  async item(sessionId: string, itemId: string): Promise<unknown> {
    const entry = this.sessions.get(sessionId);
    if (!entry) return undefined;
    return entry.archive.get(entry.itemArchives.get(itemId) ?? entry.archiveSessionId, itemId);
  }

  /** Listens for what changed in sessions; returns the function that stops listening. */
  subscribe(listener: (update: SessionUpdate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private entryOf(observation: ExchangeObservation): SessionEntry {
    const id = observation.record.session;
    const existing = this.sessions.get(id);
    if (existing) {
      if (observation.model) existing.session.model = observation.model;
      return existing;
    }
    const entry: SessionEntry = {
      session: {
        id,
        agent: observation.agent ?? 'unknown',
        model: observation.model ?? 'unknown',
        api: observation.record.api,
        requests: [],
        compactions: [],
      },
      archive: observation.archive,
      archiveSessionId: observation.archiveSessionId,
      itemArchives: new Map(),
    };
    this.sessions.set(id, entry);
    if (this.sessions.size > MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    return entry;
  }
}

/** Adds a compaction; past the cap the oldest goes, with the ids only it showed. */
function keepCompaction(entry: SessionEntry, added: MonitoredCompaction): void {
  const { compactions } = entry.session;
  compactions.push(added);
  if (compactions.length <= MAX_COMPACTIONS) return;
  const dropped = compactions.shift();
  const shown = new Set(compactions.flatMap((compaction) => compaction.archived));
  for (const id of dropped?.archived ?? []) if (!shown.has(id)) entry.itemArchives.delete(id);
}

function requestOf(record: ProxyRequestRecord, usage: ProviderUsage | undefined): MonitoredRequest {
  return {
    time: record.time,
    tokensIn: record.tokensIn,
    tokensOut: record.tokensOut,
    layer: record.layer,
    status: record.status,
    ms: Math.round(record.ms),
    cacheRead: usage?.cache_read_input_tokens ?? 0,
    cacheWrite: usage?.cache_creation_input_tokens ?? 0,
    ...(record.fallback ? { fallback: record.fallback } : {}),
    ...(record.stateNotSaved ? { stateNotSaved: record.stateNotSaved } : {}),
    ...(record.answerBroken ? { answerBroken: true } : {}),
    ...(record.streamError ? { streamError: record.streamError } : {}),
  };
}

async function compactionOf(
  record: ProxyRequestRecord,
  compaction: RequestCompaction,
  events: readonly CompactionEvent[],
  entry: SessionEntry,
): Promise<MonitoredCompaction> {
  const ends = events.filter((event) => event.type === 'compaction-end');
  const durationMs = ends.reduce((sum, event) => sum + event.durationMs, 0);
  const prices = defaultPriceTable;
  const costUsd = events.reduce((sum, event) => {
    if (event.type !== 'summary-usage') return sum;
    const { inputTokens = 0, outputTokens = 0 } = event.usage;
    return sum + (inputTokens * prices.inputPerMillion + outputTokens * prices.outputPerMillion) / 1_000_000;
  }, 0);
  for (const id of compaction.archived) entry.itemArchives.set(id, entry.archiveSessionId);
  const items = await Promise.all(
    compaction.archived.map((id) => entry.archive.get(entry.archiveSessionId, id).catch(() => undefined)),
  );
  const summary = items.find((item) => item?.kind === 'messages')?.placeholder;
  return {
    time: record.time,
    layer: compaction.layer as Exclude<CompactionLayer, 'none'>,
    tokensBefore: compaction.tokensBefore,
    tokensAfter: compaction.tokensAfter,
    durationMs: Math.round(durationMs),
    costUsd,
    ...(summary ? { summary } : {}),
    archived: [...compaction.archived],
  };
}
