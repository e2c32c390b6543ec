/**
 * The live compactor of each session (token counts and archive ids it keeps in memory), created on
 * first use and dropped when the client's history restarts. Its serializable part lives in the
 * {@link ProxySessionStore}; a compactor lost here is rebuilt from the next request. Compactors and
 * kept bodies are charged to the proxy's {@link MemoryBudget}, which evicts the least recently used.
 */
import type { ArchiveStore } from '../core/archive/archive-store.js';
import type { SessionStateStore } from '../core/archive/session-state-store.js';
import type { CompactionEvent } from '../core/events.js';
import type { SummaryModel } from '../core/summary/summary-model.js';
import type { TokenCounter } from '../core/tokens/token-counter.js';
import type { WireFormat } from '../core/wire/wire-format.js';
import { type BudgetedArchive, createBudgetedArchive } from './budgeted-archive.js';
import { HEAP_BYTES_PER_JSON_BYTE, type MemoryBudget } from './memory-budget.js';
import { createRequestCompactor, type RequestCompactor } from './request-compactor.js';
import { conversationField } from './request-conversation.js';
import { reuseUnchanged } from './request-reuse.js';
import { createSameSummaryModel, type SummaryContext } from './same-summarizer.js';
import { KEYLESS_PREFIX, shortHash } from './session-identity.js';
import type { UpstreamClient } from './upstream/upstream-client.js';

/** The compactor of one session, and the summary model a request of it brings. */
export interface SessionCompactor {
  compactor: RequestCompactor;
  /**
   * The `same` summarizer bound to this request (its provider, model and key), passed with the
   * call that may summarize; `undefined` when the compactor's own summarizer writes summaries.
   */
  summarizerFor(context: SummaryContext): SummaryModel | undefined;
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
   * Told when the budget evicted a session's compactor, so its other state (the default session
   * store's entry) goes too.
   */
  onEvict?: (sessionKey: string) => void;
  /** Receives each session's compactor events (the dashboard's timeline). */
  onEvent?: (sessionKey: string, event: CompactionEvent) => void;
}

/** A live compactor, its archive when kept in memory, and the bytes of the session's last request. */
interface LiveSession {
  session: SessionCompactor;
  archive: BudgetedArchive | undefined;
  requestBytes: number;
}

/**
 * Compactors by session key. Each session is charged what its last request and its in-memory
 * archive take; its last request body, kept for {@link reuseUnchanged}, is charged apart. Below the
 * thresholds the compactor holds those objects anyway; once a session is compacted it holds the
 * compacted history, and the client's whole history (what every request resends) is kept only there.
 * An evicted body is parsed and hashed afresh; an evicted compactor is rebuilt from the next request.
 */
export class SessionCompactors {
  private readonly live = new Map<string, LiveSession>();
  /** The last request body of each session. */
  private readonly lastBodies = new Map<string, Record<string, unknown>>();

  constructor(private readonly settings: SessionCompactorSettings) {}

  /**
   * Puts the parsed objects of the session's last request in place of the same parts sent again
   * (messages, system prompt, tools), so the compactor's per-object caches serve them
   * (`request-reuse.ts`).
   */
  reuseParsed(sessionKey: string, api: WireFormat, body: Record<string, unknown>): void {
    reuseUnchanged(this.lastBodies.get(sessionKey), body, conversationField(api));
  }

  /** Keeps a request's body (`bytes` long as it came) for {@link SessionCompactors.reuseParsed} on the next one. */
  remember(sessionKey: string, body: Record<string, unknown>, bytes: number): void {
    this.lastBodies.set(sessionKey, body);
    this.settings.budget.charge(
      bodyKey(sessionKey),
      bytes * HEAP_BYTES_PER_JSON_BYTE,
      () => this.lastBodies.delete(sessionKey),
      sessionKey,
    );
    const live = this.live.get(sessionKey);
    if (live === undefined) return;
    live.requestBytes = bytes;
    this.charge(sessionKey, live);
  }

  /** The session's compactor; a new one when `fresh` or when there is none. */
  get(sessionKey: string, fresh: boolean): SessionCompactor {
    const existing = this.live.get(sessionKey);
    const live = existing && !fresh ? existing : this.create(sessionKey);
    this.live.set(sessionKey, live);
    this.charge(sessionKey, live);
    return live.session;
  }

  /** Forgets a session's compactor (after a failure, so the next request starts clean). */
  drop(sessionKey: string): void {
    this.live.delete(sessionKey);
    this.lastBodies.delete(sessionKey);
    this.settings.budget.release(liveKey(sessionKey));
    this.settings.budget.release(bodyKey(sessionKey));
  }

  /** Sessions with a live compactor. */
  get size(): number {
    return this.live.size;
  }

  /** Charges what `live` holds; evicting it drops the compactor and empties its in-memory archive. */
  private charge(sessionKey: string, live: LiveSession): void {
    const bytes = (live.requestBytes + (live.archive?.bytes ?? 0)) * HEAP_BYTES_PER_JSON_BYTE;
    const evict = () => {
      if (this.live.get(sessionKey) === live) this.live.delete(sessionKey);
      // Its items are gone: only `--archive DIR` or `--store` keep them past an eviction.
      live.archive?.clear();
      this.settings.onEvict?.(sessionKey);
    };
    this.settings.budget.charge(liveKey(sessionKey), bytes, evict, sessionKey);
  }

  private create(sessionKey: string): LiveSession {
    const { thresholds, contextWindow, summarizer, counter, stateStore, recall, background } = this.settings;
    const { client } = this.settings;
    // An in-memory archive grows with the session: it is charged with it, and emptied when evicted.
    const inMemory = this.settings.archive
      ? undefined
      : createBudgetedArchive(() => {
          const live = this.live.get(sessionKey);
          if (live?.archive === inMemory && live) this.charge(sessionKey, live);
        });
    const archive = this.settings.archive ?? inMemory;
    // A request with no key of its own never gets a summary paid with the operator's key.
    const keyless = sessionKey.startsWith(KEYLESS_PREFIX);
    const summaryModel =
      summarizer === 'same' || summarizer === 'extractive' || keyless ? undefined : summarizer;
    const compactor = createRequestCompactor({
      // Archive file names come from the session id: a hash is safe on every file system.
      sessionId: `proxy-${shortHash(sessionKey)}`,
      ...(thresholds ? { thresholds } : {}),
      ...(contextWindow === undefined ? {} : { contextWindow }),
      ...(summaryModel ? { summarizer: summaryModel } : {}),
      ...(archive ? { archive } : {}),
      ...(counter ? { counter } : {}),
      ...(stateStore ? { stateStore } : {}),
      // Without the proxy's `recall` tool the core writes no archive ids for the model to call it with.
      recall,
      ...(background ? { hard: { background: true } } : {}),
      ...(this.settings.onEvent ? { onEvent: (event) => this.settings.onEvent?.(sessionKey, event) } : {}),
    });
    const session: SessionCompactor = {
      compactor,
      summarizerFor: (context) =>
        summarizer === 'same' ? createSameSummaryModel(client, context) : undefined,
    };
    return { session, archive: inMemory, requestBytes: 0 };
  }
}

function liveKey(sessionKey: string): string {
  return `compactor:${sessionKey}`;
}

function bodyKey(sessionKey: string): string {
  return `body:${sessionKey}`;
}
