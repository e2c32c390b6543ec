import { createHash } from 'node:crypto';
import type {
  Compactor,
  CompactorOptions,
  CompactorState,
  CompactResult,
  MaybeCompactOptions,
  Message,
  SessionStateStore,
} from 'agent-compact';
import { CompactError, createCompactor } from 'agent-compact';
import { LRUCache } from 'lru-cache';
import { createRedisArchiveStore, type RedisArchiveStore } from './redis-archive-store.js';
import type { RedisConnectionOptions } from './redis-connection.js';
import type { SessionLockOptions } from './redis-session-lock.js';
import { createRedisSessionStateStore, type RedisSessionStateStore } from './redis-session-state-store.js';

/** Compactors a process keeps warm (least recently used dropped first). */
export const DEFAULT_MAX_WARM_SESSIONS = 1_000;

/** Options of {@link createSharedCompactor}. */
export interface SharedCompactorOptions extends RedisConnectionOptions {
  /** Key prefix of both stores. @default 'agent-compact:' */
  prefix?: string;
  /** Delete a session's archive and state this many seconds after its last write. */
  ttlSeconds?: number;
  /** Lease of the per-session lock (a crashed holder frees the session after it). @default 30000 */
  leaseMs?: number;
  /** Options of every session's compactor (archive, state store and session id are set here). */
  compactor?: Omit<CompactorOptions, 'archive' | 'stateStore' | 'sessionId'>;
  /** Compactors kept warm in this process. @default 1000 */
  maxWarmSessions?: number;
}

/** Sessions shared by every process on one Redis: any process can serve any turn. */
export interface SharedCompactor {
  /**
   * Runs `task` with the session's compactor while holding the session's lock. The compactor is up
   * to date: when another process moved the session since this one last served it, a fresh
   * compactor loads the archive and state first.
   */
  withSession<T>(
    sessionId: string,
    task: (compactor: Compactor) => Promise<T>,
    options?: SessionLockOptions & {
      /**
       * The identity of the request (see {@link requestKeyOf}). When the last call of the session
       * had the same key, its stored result is returned and `task` does not run: a retried request
       * gets the answer the first attempt produced. The result must survive `JSON.stringify`.
       */
      requestKey?: string;
    },
  ): Promise<T>;
  /**
   * `withSession(sessionId, (compactor) => compactor.maybeCompact(messages, options), { requestKey })`
   * with the request key of the messages and options.
   */
  maybeCompact(
    sessionId: string,
    messages: readonly Message[],
    options?: MaybeCompactOptions,
  ): Promise<CompactResult>;
  readonly archive: RedisArchiveStore;
  readonly stateStore: RedisSessionStateStore;
  /** Closes both stores' connections (when made from `url`). */
  close(): Promise<void>;
}

interface WarmSession {
  compactor: Compactor;
  /** The state version this compactor saw last (loaded or committed). */
  version: number;
  /** Takes the state the compactor saved during the call, if it saved one (see deferredSaves). */
  takeSaved(): { state: CompactorState; expectedVersion: number } | undefined;
}

/** Runs of a turn when the session's state moved under it (a lease that ran out mid-call). */
const MAX_CONFLICT_ATTEMPTS = 3;

/**
 * The state store a warm compactor sees: loads go to Redis, saves are held until the call ends
 * and are then committed together with the call's result in one atomic step. A process killed
 * mid-call therefore leaves either nothing or the state and the result, never a state whose
 * result the client did not get (a retry would then compact an already compacted turn again).
 */
function deferredSaves(store: RedisSessionStateStore): {
  store: SessionStateStore;
  takeSaved: WarmSession['takeSaved'];
} {
  let saved: { state: CompactorState; expectedVersion: number } | undefined;
  return {
    store: {
      specificationVersion: 'v1',
      load: (sessionId) => store.load(sessionId),
      async save(_sessionId, state, { expectedVersion }) {
        // Under the session lock nobody else saves, so the compare-and-set at commit will hold.
        saved = { state, expectedVersion: saved?.expectedVersion ?? expectedVersion };
        return { version: expectedVersion + 1 };
      },
    },
    takeSaved() {
      const taken = saved;
      saved = undefined;
      return taken;
    },
  };
}

/** The identity of a call: the same messages and options give the same key. */
export function requestKeyOf(messages: readonly Message[], options: MaybeCompactOptions = {}): string {
  const { signal: _signal, ...rest } = options;
  return createHash('sha256')
    .update(JSON.stringify([messages, rest]))
    .digest('base64url');
}

/**
 * One Redis for a fleet: archive, compactor state and a per-session lock, so several processes
 * (agent workers, proxy replicas) serve the same sessions turn by turn, each turn on any of them,
 * with the outputs of one process that served them all.
 *
 * @example
 * const shared = createSharedCompactor({ url: process.env.REDIS_URL, compactor: { contextWindow: 200_000 } });
 * const { messages: toSend } = await shared.maybeCompact('task-42', messages, { system });
 * // … on shutdown
 * await shared.close();
 */
export function createSharedCompactor({
  prefix,
  ttlSeconds,
  leaseMs,
  compactor: compactorOptions = {},
  maxWarmSessions = DEFAULT_MAX_WARM_SESSIONS,
  ...connection
}: SharedCompactorOptions): SharedCompactor {
  const common = {
    ...connection,
    ...(prefix === undefined ? {} : { prefix }),
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  };
  const archive = createRedisArchiveStore(common);
  const stateStore = createRedisSessionStateStore({
    ...common,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  });
  const sessions = new WarmSessions(archive, stateStore, compactorOptions, maxWarmSessions);
  const withSession = sessions.withSession.bind(sessions);
  return {
    withSession,
    maybeCompact: (sessionId, messages, options) =>
      withSession(sessionId, (compactor) => compactor.maybeCompact(messages, options), {
        requestKey: requestKeyOf(messages, options),
      }),
    archive,
    stateStore,
    async close() {
      await Promise.all([archive.close(), stateStore.close()]);
    },
  };
}

/**
 * The compactors this process keeps warm, one per session it served last, and the turns run on
 * them under the session's lock: a turn replays a recorded result, or runs and commits its state
 * and result together, again on a conflict up to {@link MAX_CONFLICT_ATTEMPTS} times.
 */
class WarmSessions {
  readonly #warm: LRUCache<string, WarmSession>;

  constructor(
    readonly archive: RedisArchiveStore,
    readonly stateStore: RedisSessionStateStore,
    readonly compactorOptions: Omit<CompactorOptions, 'archive' | 'stateStore' | 'sessionId'>,
    maxWarmSessions: number,
  ) {
    this.#warm = new LRUCache<string, WarmSession>({ max: Math.max(1, maxWarmSessions) });
  }

  async withSession<T>(
    sessionId: string,
    task: (compactor: Compactor) => Promise<T>,
    options: SessionLockOptions & { requestKey?: string } = {},
  ): Promise<T> {
    const { requestKey, ...lockOptions } = options;
    return this.stateStore.withSessionLock(
      sessionId,
      async () => {
        for (let attemptNumber = 1; ; attemptNumber++) {
          try {
            return await this.#attempt(sessionId, task, requestKey);
          } catch (error) {
            const conflict = CompactError.isInstance(error) && error.code === 'STATE_CONFLICT';
            if (!conflict || attemptNumber >= MAX_CONFLICT_ATTEMPTS) throw error;
          }
        }
      },
      lockOptions,
    );
  }

  /** One attempt of a turn under the lock: replay, or run and commit state and result together. */
  async #attempt<T>(
    sessionId: string,
    task: (compactor: Compactor) => Promise<T>,
    requestKey: string | undefined,
  ): Promise<T> {
    const peeked = await this.stateStore.peek(sessionId, requestKey);
    if (peeked.result !== undefined) return JSON.parse(peeked.result) as T;
    const session = this.#session(sessionId, peeked.version, peeked.interrupted);
    try {
      const result = await task(session.compactor);
      const saved = session.takeSaved();
      const committed = await this.stateStore.commit(sessionId, {
        expectedVersion: saved?.expectedVersion ?? session.version,
        ...(saved ? { state: saved.state } : {}),
        ...(requestKey === undefined ? {} : { call: { requestKey, result: JSON.stringify(result) } }),
      });
      session.version = committed.version;
      return result;
    } catch (error) {
      // The compactor's memory may hold a state that was never committed: forget it.
      this.#warm.delete(sessionId);
      throw error;
    }
  }

  #session(sessionId: string, version: number, interrupted: boolean): WarmSession {
    let session = this.#warm.get(sessionId);
    // Another process served the session since (or this one never did), or a call died half way
    // (its archive writes are unknown to this compactor): start from what the stores hold.
    if (!session || session.version !== version || interrupted) {
      const deferred = deferredSaves(this.stateStore);
      session = {
        compactor: createCompactor({
          ...this.compactorOptions,
          archive: this.archive,
          stateStore: deferred.store,
          sessionId,
        }),
        version,
        takeSaved: deferred.takeSaved,
      };
    }
    this.#warm.set(sessionId, session);
    return session;
  }
}
