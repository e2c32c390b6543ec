import { randomUUID } from 'node:crypto';
import type {
  CompactorState,
  SessionStateStore,
  StoredSessionState,
} from '../core/archive/session-state-store.js';
import { CompactError } from '../core/errors.js';
import { checkTtl } from './redis-archive-store.js';
import { luaScript, openRedisConnection, type RedisConnectionOptions } from './redis-connection.js';
import { checkPrefix, DEFAULT_PREFIX, sessionKey } from './redis-keys.js';

/** A lock's lease: a holder that crashed frees the session after this long. */
export const DEFAULT_LEASE_MS = 30_000;
/** How long {@link RedisSessionStateStore.withSessionLock} waits for another holder by default. */
export const DEFAULT_LOCK_WAIT_MS = 60_000;
/** First pause between two attempts to take a held lock; doubles up to the maximum. */
const LOCK_RETRY_MIN_MS = 5;
const LOCK_RETRY_MAX_MS = 200;
/** A holder renews its lease when this fraction of it has passed. */
const RENEW_FRACTION = 1 / 3;

/** Options of {@link createRedisSessionStateStore}. */
export interface RedisSessionStateStoreOptions extends RedisConnectionOptions {
  /**
   * Prepended to every key; a session's state is `<prefix>{<session id>}:state`, its lock
   * `…:lock` (same hash tag as the archive's keys).
   * @default 'agent-compact:'
   */
  prefix?: string;
  /** Delete a session's state this many seconds after its last save. Unset: kept until deleted. */
  ttlSeconds?: number;
  /**
   * The lease of {@link RedisSessionStateStore.withSessionLock}: a crashed holder's lock expires
   * after it. A live holder renews it, so a long compaction keeps the lock.
   * @default 30000
   */
  leaseMs?: number;
}

/** Options of {@link RedisSessionStateStore.withSessionLock}. */
export interface SessionLockOptions {
  /** Give up waiting for another holder after this long (`STATE_CONFLICT`). @default 60000 */
  waitMs?: number;
  /** Stop waiting when aborted (`ABORTED`). */
  signal?: AbortSignal;
}

/** A {@link SessionStateStore} in Redis, with a per-session lock for fleets. */
export interface RedisSessionStateStore extends SessionStateStore {
  /**
   * Runs `task` while holding the session's lock (a lease in Redis, renewed while `task` runs), so
   * two processes never compact the same session at once: the second waits, then loads the state
   * the first saved. Use it around `maybeCompact` when turns of one session may reach two processes.
   */
  withSessionLock<T>(sessionId: string, task: () => Promise<T>, options?: SessionLockOptions): Promise<T>;
  /** The stored state's version (0 when none): one cheap read, to tell whether a session moved. */
  version(sessionId: string): Promise<number>;
  /** Closes the connection when the store made it from `url`; a given client stays open. */
  close(): Promise<void>;
}

const versionScript = luaScript(`return redis.call('HGET', KEYS[1], 'version')`);

const loadScript = luaScript(`return redis.call('HMGET', KEYS[1], 'version', 'state')`);

// KEYS[1] the state hash. ARGV: expected version, state JSON, ttl seconds (0: none).
// Returns the new version, or the negated stored version on a conflict (0 stays 0: use -1 - v).
const saveScript = luaScript(`
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then return -1 - current end
redis.call('HSET', KEYS[1], 'version', current + 1, 'state', ARGV[2])
local ttl = tonumber(ARGV[3])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return current + 1
`);

const acquireScript = luaScript(`return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0`);

// Renews (ARGV[2] > 0) or releases (ARGV[2] = 0) the lock only when this holder still has it.
const holdScript = luaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) > 0 then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return redis.call('DEL', KEYS[1])
`);

/**
 * A {@link SessionStateStore} in Redis (or Valkey, or Redis Cluster): a compactor's state saved
 * with compare-and-set on its version in one Lua script, so a session can continue on any process
 * and two processes never both win a save. `withSessionLock` adds a leased per-session lock for
 * fleets where one session's turns may reach two processes at once.
 *
 * @example
 * const options = { url: process.env.REDIS_URL };
 * const archive = createRedisArchiveStore(options);
 * const stateStore = createRedisSessionStateStore(options);
 * const compactor = createCompactor({ archive, stateStore, sessionId: 'task-42' });
 * const result = await stateStore.withSessionLock('task-42', () => compactor.maybeCompact(messages));
 */
export function createRedisSessionStateStore({
  prefix = DEFAULT_PREFIX,
  ttlSeconds,
  leaseMs = DEFAULT_LEASE_MS,
  ...connection
}: RedisSessionStateStoreOptions): RedisSessionStateStore {
  checkPrefix(prefix);
  const ttl = checkTtl(ttlSeconds);
  if (!Number.isInteger(leaseMs) || leaseMs <= 0) {
    throw new CompactError(`leaseMs must be a positive whole number, got ${leaseMs}`, {
      code: 'INVALID_OPTIONS',
      path: 'leaseMs',
    });
  }
  const redis = openRedisConnection(connection);
  const stateKey = (sessionId: string) => sessionKey(prefix, sessionId, 'state');
  const lockKey = (sessionId: string) => sessionKey(prefix, sessionId, 'lock');

  async function acquire(
    sessionId: string,
    token: string,
    { waitMs = DEFAULT_LOCK_WAIT_MS, signal }: SessionLockOptions,
  ) {
    const deadline = Date.now() + waitMs;
    let pause = LOCK_RETRY_MIN_MS;
    for (;;) {
      if (signal?.aborted) {
        throw new CompactError(`waiting for the lock of session ${sessionId} was aborted`, {
          code: 'ABORTED',
        });
      }
      const what = `taking the lock of session ${sessionId}`;
      if ((await redis.run(acquireScript, [lockKey(sessionId)], [token, String(leaseMs)], what)) === 1)
        return;
      if (Date.now() + pause > deadline) {
        throw new CompactError(`session ${sessionId} stayed locked by another process for ${waitMs} ms`, {
          code: 'STATE_CONFLICT',
        });
      }
      // Jitter spreads waiters out so they do not all retry in the same instant.
      await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
      pause = Math.min(pause * 2, LOCK_RETRY_MAX_MS);
    }
  }

  return {
    specificationVersion: 'v1',
    async load(sessionId) {
      const what = `loading the state of session ${sessionId}`;
      const [version, state] = (await redis.run(loadScript, [stateKey(sessionId)], [], what)) as [
        string | null,
        string | null,
      ];
      if (version === null || state === null) return undefined;
      try {
        return {
          version: Number(version),
          state: JSON.parse(state) as CompactorState,
        } satisfies StoredSessionState;
      } catch (error) {
        throw new CompactError('the stored compactor state is not valid JSON', {
          code: 'ARCHIVE_FAILED',
          path: stateKey(sessionId),
          cause: error,
        });
      }
    },
    async version(sessionId) {
      const what = `reading the state version of session ${sessionId}`;
      const reply = await redis.run(versionScript, [stateKey(sessionId)], [], what);
      return typeof reply === 'string' ? Number(reply) : 0;
    },
    async save(sessionId, state, { expectedVersion }) {
      const what = `saving the state of session ${sessionId}`;
      const args = [String(expectedVersion), JSON.stringify(state), String(ttl)];
      const reply = Number(await redis.run(saveScript, [stateKey(sessionId)], args, what));
      if (reply < 0) {
        throw new CompactError(
          `session ${sessionId}: state version is ${-1 - reply}, expected ${expectedVersion}; another compactor saved it first`,
          { code: 'STATE_CONFLICT' },
        );
      }
      return { version: reply };
    },
    async withSessionLock(sessionId, task, options = {}) {
      const token = randomUUID();
      await acquire(sessionId, token, options);
      const what = `renewing the lock of session ${sessionId}`;
      const renew = setInterval(
        () => {
          redis.run(holdScript, [lockKey(sessionId)], [token, String(leaseMs)], what).catch(() => {});
        },
        Math.max(1, Math.floor(leaseMs * RENEW_FRACTION)),
      );
      try {
        return await task();
      } finally {
        clearInterval(renew);
        // If the release fails the lease still frees the session.
        await redis
          .run(holdScript, [lockKey(sessionId)], [token, '0'], `releasing the lock of session ${sessionId}`)
          .catch(() => {});
      }
    },
    close: () => redis.close(),
  };
}
