/**
 * The live compactor of each session (token counts and archive ids it keeps in memory), created on
 * first use and dropped when the client's history restarts. Its serializable part lives in the
 * {@link ProxySessionStore}; a compactor lost here is rebuilt from the next request. Each session is
 * one entry of the proxy's {@link MemoryBudget} (its compactor, in-memory archive and last request),
 * which evicts the least recently used.
 */

import type {
  ArchiveStore,
  CompactionEvent,
  CompactionLayer,
  SessionStateStore,
  SummaryModel,
  TokenCounter,
} from 'agent-compact';
import { createExtractiveSummaryModel } from 'agent-compact';
import type { WireFormat } from 'agent-compact/wire';
import { LRUCache } from 'lru-cache';
import { type BudgetedArchive, createBudgetedArchive } from './budgeted-archive.js';
import { HEAP_BYTES_PER_JSON_BYTE, type MemoryBudget } from './memory-budget.js';
import { fallbackReasonOf, type ProxyRequestRecord } from './proxy-stats.js';
import { createRequestCompactor, type RequestCompactor } from './request-compactor.js';
import { createRequestTokens, createSharedCounter, type RequestTokens } from './request-tokens.js';
import { createSameSummaryModel, type SummaryContext } from './same-summarizer.js';
import { KEYLESS_OWNER, ownerOfSessionKey, shortHash } from './session-identity.js';
import { type BodyRead, SessionStates } from './session-state.js';
import type { UpstreamClient } from './upstream/upstream-client.js';

/** The compactor of one session, and the summary model a request of it brings. */
export interface SessionCompactor {
  compactor: RequestCompactor;
  /**
   * The `same` summarizer bound to this request (its provider, model and key), passed with the
   * call that may summarize: the operator's model for a verified credential, or `same`; `undefined`:
   * offline. The extractive one, no model call, while the session's compactions keep being rejected
   * for the same reason, and for a summary `guard` says would be.
   */
  summarizerFor(context: SummaryContext, guard?: SummaryGuard): SummaryModel | undefined;
}

/** What tells a summary in advance that its compaction will be thrown away. */
export interface SummaryGuard {
  /**
   * The first problem the proxy's check finds in what the client sent, if any: a compaction keeps
   * those messages as they came, so its result would be rejected for the same problem.
   */
  clientProblem?: () => string | undefined;
}

/** Settings every session's compactor shares. */
export interface SessionCompactorSettings {
  thresholds?: { mid?: number; hard?: number };
  contextWindow?: number;
  summarizer: 'same' | 'extractive' | SummaryModel;
  /** The proxy's one HTTP client, for the `same` summarizer's calls. */
  client: UpstreamClient;
  archive?: ArchiveStore;
  counter?: TokenCounter;
  stateStore?: SessionStateStore;
  /** Whether the model gets the proxy's `recall` tool (the compactors' `recall` option). */
  recall: boolean;
  /** Hard summaries in the background (`hard: { background: true }`). */
  background: boolean;
  /** What compactors, their in-memory archives and kept bodies are charged to. */
  budget: MemoryBudget;
  /**
   * Characters of counted texts the shared counter keeps (`countCacheBudget` in request-tokens.ts).
   * @default Infinity
   */
  countCacheChars?: number;
  /**
   * Every session's last request, which the proxy also reads bodies from (the incremental read).
   * @default a new, empty one
   */
  states?: SessionStates;
  /**
   * Told when the budget evicted a session's compactor, so its other state (the default session
   * store's entry) goes too.
   */
  onEvict?: (sessionKey: string) => void;
  /** Receives each session's compactor events (the dashboard's timeline). */
  onEvent?: (sessionKey: string, event: CompactionEvent) => void;
}

/**
 * Owners (credential hashes) the upstream has accepted, for the operator's summarizer. A 2xx is
 * proof the credential is real; a made-up key never gets there, so it never spends the operator's.
 * Bounded like the live compactors; an owner forgotten is trusted again after its next 2xx.
 */
const MAX_VERIFIED_OWNERS = 10_000;

/**
 * Compactions of a session rejected in a row for the same reason after which its summaries are
 * written by the extractive summarizer (no model call) until one passes: the validator that threw
 * the last ones away will most likely throw the next one away too, and a model summary is paid.
 */
const REJECTION_BREAKER = 2;

/** What one request's compaction came to, for the breaker. */
export interface CompactionOutcome {
  layer: CompactionLayer;
  fallback: string | undefined;
}

/** A live compactor and its archive when kept in memory. */
interface LiveSession {
  session: SessionCompactor;
  lineage: string | undefined;
  recall: boolean;
  archive: BudgetedArchive | undefined;
}

/**
 * What a live compactor derives from its session's last request, per byte of it: the messages in
 * the core's model, its last output, its token and fingerprint caches, and the conversation the
 * store keeps as sent. Measured with `BENCH_MAX_MEMORY=128MiB npm run bench -- memory`: the proxy
 * retained +261 MiB with none charged, +147 MiB at 2×, +126 MiB (within the budget) at this.
 */
const COMPACTOR_BYTES_PER_REQUEST_BYTE = 3 * HEAP_BYTES_PER_JSON_BYTE;

/** Sessions whose rejection streaks are remembered for the breaker (a few bytes each). */
const MAX_REJECTION_STREAKS = 10_000;

/**
 * Compactors by session key. Each session is one budget entry: its last request, held once (bytes
 * and parse, in {@link SessionStates}, read by the incremental read and the reuse), what its
 * compactor derives from it ({@link COMPACTOR_BYTES_PER_REQUEST_BYTE}) and its in-memory archive.
 * Evicting a session drops all three: its next body is parsed whole and its compactor rebuilt from it.
 */
export class SessionCompactors {
  private readonly live = new Map<string, LiveSession>();
  /** The last request of each session. */
  readonly states: SessionStates;
  private readonly verifiedOwners = new LRUCache<string, true>({ max: MAX_VERIFIED_OWNERS });

  /** What a session's compaction said of itself since its request last took it (see `takeNotes`). */
  private readonly notes = new LRUCache<string, CompactionNotes>({ max: MAX_REJECTION_STREAKS });
  /** The session's latest rejection reason and how many compactions in a row it threw away. */
  private readonly rejections: LRUCache<string, { reason: string; count: number }>;
  /** Counts request bodies for the proxy's figures, with the compactors' counter. */
  readonly tokensOf: RequestTokens;
  private readonly freeSummarizer = createExtractiveSummaryModel();
  /** The settings' counter, shared by every compactor and the figures so a text is tokenized once. */
  private readonly counter: TokenCounter;

  constructor(private readonly settings: SessionCompactorSettings) {
    this.rejections = new LRUCache({ max: MAX_REJECTION_STREAKS });
    this.counter = createSharedCounter(settings.counter, settings.countCacheChars);
    this.tokensOf = createRequestTokens(this.counter);
    this.states = settings.states ?? new SessionStates();
  }

  /**
   * What the session's compaction said of itself since the last call, once: the request whose
   * compaction (or the background summary that finished before it) fell back, or whose hard the
   * breaker held back, reports it.
   */
  takeNotes(sessionKey: string): CompactionNotes {
    const notes = this.notes.get(sessionKey) ?? {};
    this.notes.delete(sessionKey);
    return notes;
  }

  /**
   * Remembers how the session's compaction ended: a rejected one counts towards the breaker
   * ({@link REJECTION_BREAKER}), one that went upstream closes it; a request that needed none
   * changes nothing.
   */
  noteOutcome(sessionKey: string, { layer, fallback }: CompactionOutcome): void {
    if (fallback === undefined) {
      if (layer !== 'none') this.rejections.delete(sessionKey);
      return;
    }
    const { kind, reason } = fallbackReasonOf(fallback);
    if (kind !== 'rejected') return;
    const previous = this.rejections.get(sessionKey);
    const count = previous?.reason === reason ? previous.count + 1 : 1;
    this.rejections.set(sessionKey, { reason, count });
  }

  /** True when the session's last compactions were thrown away for the same reason. */
  private breakerOpen(sessionKey: string): boolean {
    return (this.rejections.get(sessionKey)?.count ?? 0) >= REJECTION_BREAKER;
  }

  /**
   * Puts the parsed objects of the session's last request in place of the same parts sent again
   * (messages, system prompt, tools), so the compactor's per-object caches serve them
   * (`request-reuse.ts`).
   */
  reuseParsed(sessionKey: string, api: WireFormat, body: Record<string, unknown>): void {
    this.states.reuse(sessionKey, api, body);
  }

  /** Keeps a request as the session's last, for the next one's read and {@link SessionCompactors.reuseParsed}. */
  remember(sessionKey: string, read: BodyRead): void {
    this.states.keep(sessionKey, read);
    this.charge(sessionKey);
  }

  /**
   * The session's compactor for the history's `lineage` (see `ProxySessionState.lineage`): a new
   * one, with an archive of its own, when the lineage changed or there is none. `recall: false`
   * (the client has a `recall` tool of its own) names no archive ids even under `--recall`.
   */
  get(sessionKey: string, lineage: string | undefined, recall = this.settings.recall): SessionCompactor {
    const existing = this.live.get(sessionKey);
    const live =
      existing && existing.lineage === lineage && existing.recall === recall
        ? existing
        : this.create(sessionKey, lineage, recall);
    this.live.set(sessionKey, live);
    this.charge(sessionKey);
    return live.session;
  }

  /**
   * Copies into the archive of a new branch's compactor (`session`) the items of the history it
   * went on from (`from`), before that compactor reads its archive: what the inherited prefix's
   * placeholders and summary stand for stays recallable and rebuildable there, and its own ids
   * continue after them. The branch parted after that history's last compaction, so each of those
   * items comes from the messages the two share. False, never a throw, when the archive failed to
   * list or take them (the branch must then not go on from that prefix); true when they were copied
   * or none is left to copy (an in-memory archive evicted with its session).
   */
  async inherit(
    session: SessionCompactor,
    from: { key: string; lineage: string | undefined },
  ): Promise<boolean> {
    const parent = this.live.get(from.key);
    const source =
      parent && parent.lineage === from.lineage ? parent.session.compactor.archive : this.settings.archive;
    if (source === undefined) return true;
    const { archive, sessionId } = session.compactor;
    try {
      const items = await source.list(archiveSessionId(from.key, from.lineage));
      if (items.length > 0) await archive.put(items.map((item) => ({ ...item, sessionId })));
      return true;
    } catch {
      return false;
    }
  }

  /** Notes that the upstream accepted the credential of `sessionKey` (it answered a 2xx). */
  verify(sessionKey: string): void {
    const owner = ownerOfSessionKey(sessionKey);
    if (owner !== KEYLESS_OWNER) this.verifiedOwners.set(owner, true);
  }

  /** Forgets a session's compactor (after a failure, so the next request starts clean). */
  drop(sessionKey: string): void {
    this.live.delete(sessionKey);
    this.states.delete(sessionKey);
    this.settings.budget.release(budgetKey(sessionKey));
  }

  /** Sessions with a live compactor. */
  get size(): number {
    return this.live.size;
  }

  /**
   * Charges what the session holds, its last request and in-memory archive, as one entry; evicting
   * it drops the compactor, empties the archive and forgets the request.
   */
  private charge(sessionKey: string): void {
    const live = this.live.get(sessionKey);
    const archive = live?.archive;
    const derived = live ? this.states.requestBytesOf(sessionKey) * COMPACTOR_BYTES_PER_REQUEST_BYTE : 0;
    const bytes =
      this.states.bytesOf(sessionKey) + derived + (archive?.bytes ?? 0) * HEAP_BYTES_PER_JSON_BYTE;
    const evict = () => {
      this.live.delete(sessionKey);
      this.states.delete(sessionKey);
      // Its items are gone: only `--archive DIR` or `--store` keep them past an eviction.
      archive?.clear();
      this.settings.onEvict?.(sessionKey);
    };
    this.settings.budget.charge(budgetKey(sessionKey), bytes, evict, sessionKey);
  }

  /**
   * The model that writes a summary: `same` calls the client's own model with its credential; a
   * fixed model runs only for a credential the upstream accepted (so a made-up key never spends the
   * operator's); otherwise offline (the compactor has no model of its own: its extractive summary).
   */
  private paidSummarizer(owner: string, context: SummaryContext): SummaryModel | undefined {
    const { summarizer, client } = this.settings;
    if (summarizer === 'same') return createSameSummaryModel(client, context);
    if (summarizer === 'extractive') return undefined;
    return this.verifiedOwners.has(owner) ? summarizer : undefined;
  }

  private create(sessionKey: string, lineage: string | undefined, recall: boolean): LiveSession {
    const { thresholds, contextWindow, stateStore, background } = this.settings;
    const { counter } = this;
    const owner = ownerOfSessionKey(sessionKey);
    // An in-memory archive grows with the session: it is charged with it, and emptied when evicted.
    const inMemory = this.settings.archive
      ? undefined
      : createBudgetedArchive(() => {
          const live = this.live.get(sessionKey);
          if (live?.archive === inMemory && live) this.charge(sessionKey);
        });
    const archive = this.settings.archive ?? inMemory;
    const compactor = createRequestCompactor({
      sessionId: archiveSessionId(sessionKey, lineage),
      ...(thresholds ? { thresholds } : {}),
      ...(contextWindow === undefined ? {} : { contextWindow }),
      ...(archive ? { archive } : {}),
      counter,
      ...(stateStore ? { stateStore } : {}),
      // Without the proxy's `recall` tool the core writes no archive ids for the model to call it with.
      recall,
      ...(background ? { hard: { background: true } } : {}),
      onEvent: (event) => {
        const note = noteOf(event);
        if (note) this.notes.set(sessionKey, { ...this.notes.get(sessionKey), ...note });
        this.settings.onEvent?.(sessionKey, event);
      },
    });
    const session: SessionCompactor = {
      compactor,
      summarizerFor: (context, { clientProblem } = {}) => {
        if (this.breakerOpen(sessionKey)) return this.freeSummarizer;
        const paid = this.paidSummarizer(owner, context);
        if (paid === undefined || clientProblem === undefined) return paid;
        return unlessRejected(paid, clientProblem, this.freeSummarizer);
      },
    };
    return { session, lineage, recall, archive: inMemory };
  }
}

/** The compactor's session id: archive file names come from it, and a hash is safe on every file system. */
function archiveSessionId(sessionKey: string, lineage: string | undefined): string {
  return `proxy-${shortHash(lineage === undefined ? sessionKey : `${sessionKey}\n${lineage}`)}`;
}

/** The session's one entry in the budget. */
export function budgetKey(sessionKey: string): string {
  return `session:${sessionKey}`;
}

/**
 * `paid`, except that a summary whose compaction the proxy would reject anyway (`clientProblem`
 * finds one, asked only when a summary is about to be written) is written by `free` instead.
 */
function unlessRejected(
  paid: SummaryModel,
  clientProblem: () => string | undefined,
  free: SummaryModel,
): SummaryModel {
  return {
    ...paid,
    summarize: (request, options) =>
      clientProblem() === undefined ? paid.summarize(request, options) : free.summarize(request, options),
  };
}

/**
 * What a request's record says of its compaction beyond the layer: why a layer wrote without its
 * model (`modelFallback`), why the breaker held hard back (`heldBack`).
 */
export type CompactionNotes = Pick<ProxyRequestRecord, 'modelFallback' | 'heldBack'>;

/** The note an event makes, if it makes one. */
function noteOf(event: CompactionEvent): CompactionNotes | undefined {
  if (event.type === 'fallback-used') return { modelFallback: event.reason };
  if (event.type === 'circuit-breaker-open') return { heldBack: heldBackReason(event) };
  return undefined;
}

/** The `circuit-breaker-open` event in words, with its sizes, for the request's record. */
function heldBackReason(event: Extract<CompactionEvent, { type: 'circuit-breaker-open' }>): string {
  const over = `${event.tokensBefore} tokens, mid ${event.mid}`;
  return event.reason === 'previous-hard'
    ? `${over}: the last hard compaction left ${event.previousTokensAfter}, over mid`
    : `${over}: even an empty summary would leave ${event.floorTokens} (system, tools and the latest request)`;
}
