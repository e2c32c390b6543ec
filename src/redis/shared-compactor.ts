import { createCompactor } from '../core/compactor.js';
import type {
  Compactor,
  CompactorOptions,
  CompactResult,
  MaybeCompactOptions,
} from '../core/compactor-options.js';
import type { Message } from '../core/conversation/types.js';
import { createRedisArchiveStore, type RedisArchiveStore } from './redis-archive-store.js';
import type { RedisConnectionOptions } from './redis-connection.js';
import {
  createRedisSessionStateStore,
  type RedisSessionStateStore,
  type SessionLockOptions,
} from './redis-session-state-store.js';

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
    options?: SessionLockOptions,
  ): Promise<T>;
  /** `withSession(sessionId, (compactor) => compactor.maybeCompact(messages, options))`. */
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
  /** The state version this compactor saw last (loaded or saved). */
  version: number;
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
  const warm = new Map<string, WarmSession>();

  function remember(sessionId: string, session: WarmSession) {
    warm.delete(sessionId);
    warm.set(sessionId, session);
    if (warm.size > maxWarmSessions) warm.delete(warm.keys().next().value as string);
  }

  async function withSession<T>(
    sessionId: string,
    task: (compactor: Compactor) => Promise<T>,
    options?: SessionLockOptions,
  ): Promise<T> {
    return stateStore.withSessionLock(
      sessionId,
      async () => {
        const version = await stateStore.version(sessionId);
        let session = warm.get(sessionId);
        // Another process served the session since (or this one never did): start from what it saved.
        if (!session || session.version !== version) {
          session = {
            compactor: createCompactor({ ...compactorOptions, archive, stateStore, sessionId }),
            version,
          };
        }
        remember(sessionId, session);
        try {
          return await task(session.compactor);
        } finally {
          // Under the lock nobody else saves: what is stored now is what this compactor knows.
          // A failed read forgets the compactor, so the next turn loads afresh.
          await stateStore.version(sessionId).then(
            (after) => {
              session.version = after;
            },
            () => warm.delete(sessionId),
          );
        }
      },
      options,
    );
  }

  return {
    withSession,
    maybeCompact: (sessionId, messages, options) =>
      withSession(sessionId, (compactor) => compactor.maybeCompact(messages, options)),
    archive,
    stateStore,
    async close() {
      await Promise.all([archive.close(), stateStore.close()]);
    },
  };
}
