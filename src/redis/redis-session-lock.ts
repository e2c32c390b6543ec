import { randomUUID } from 'node:crypto';
import { CompactError } from 'agent-compact';
import { luaScript, type RedisConnection } from './redis-connection.js';

/** How long a caller waits for another holder of a session's lock by default. */
export const DEFAULT_LOCK_WAIT_MS = 60_000;
/** First pause between two attempts to take a held lock; doubles up to the maximum. */
const LOCK_RETRY_MIN_MS = 5;
const LOCK_RETRY_MAX_MS = 200;
/** A holder renews its lease when this fraction of it has passed. */
const RENEW_FRACTION = 1 / 3;

/** Options of a session lock's `withSessionLock`. */
export interface SessionLockOptions {
  /** Give up waiting for another holder after this long (`STATE_CONFLICT`). @default 60000 */
  waitMs?: number;
  /** Stop waiting when aborted (`ABORTED`). */
  signal?: AbortSignal;
}

const acquireScript = luaScript(`return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0`);

// Renews (ARGV[2] > 0) or releases (ARGV[2] = 0) the lock only when this holder still has it.
const holdScript = luaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) > 0 then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return redis.call('DEL', KEYS[1])
`);

/**
 * A leased lock per session: `SET NX PX` with a random token, renewed every third of the lease
 * while the task runs and released by its token, so a crashed holder frees the session when its
 * lease runs out and a slow one never releases a lock another took after it.
 */
export function createSessionLock(redis: RedisConnection, leaseMs: number) {
  async function acquire(key: string, sessionId: string, token: string, options: SessionLockOptions) {
    const { waitMs = DEFAULT_LOCK_WAIT_MS, signal } = options;
    const deadline = Date.now() + waitMs;
    const what = `taking the lock of session ${sessionId}`;
    for (let pause = LOCK_RETRY_MIN_MS; ; pause = Math.min(pause * 2, LOCK_RETRY_MAX_MS)) {
      if (signal?.aborted) {
        throw new CompactError(`waiting for the lock of session ${sessionId} was aborted`, {
          code: 'ABORTED',
        });
      }
      if ((await redis.run(acquireScript, [key], [token, String(leaseMs)], what)) === 1) return;
      if (Date.now() + pause > deadline) {
        throw new CompactError(`session ${sessionId} stayed locked by another process for ${waitMs} ms`, {
          code: 'STATE_CONFLICT',
        });
      }
      // Jitter spreads waiters out so they do not all retry in the same instant.
      await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
    }
  }

  return async function withSessionLock<T>(
    key: string,
    sessionId: string,
    task: () => Promise<T>,
    options: SessionLockOptions = {},
  ): Promise<T> {
    const token = randomUUID();
    await acquire(key, sessionId, token, options);
    const what = `renewing the lock of session ${sessionId}`;
    const renew = setInterval(
      () => void redis.run(holdScript, [key], [token, String(leaseMs)], what).catch(() => {}),
      Math.max(1, Math.floor(leaseMs * RENEW_FRACTION)),
    );
    try {
      return await task();
    } finally {
      clearInterval(renew);
      // If the release fails the lease still frees the session.
      await redis
        .run(holdScript, [key], [token, '0'], `releasing the lock of session ${sessionId}`)
        .catch(() => {});
    }
  };
}
