import type { CompactorState, SessionStateStore, StoredSessionState } from 'agent-compact';
import { CompactError } from 'agent-compact';
import { checkTtl } from './redis-archive-store.js';
import { luaScript, openRedisConnection, type RedisConnectionOptions } from './redis-connection.js';
import { checkPrefix, DEFAULT_PREFIX, sessionKey } from './redis-keys.js';
import { createSessionLock, type SessionLockOptions } from './redis-session-lock.js';

/** A lock's lease: a holder that crashed frees the session after this long. */
export const DEFAULT_LEASE_MS = 30_000;

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

/** What {@link RedisSessionStateStore.commit} saves. */
export interface SessionCommit {
  expectedVersion: number;
  /** The new state; absent when the call left it unchanged. */
  state?: CompactorState;
  /** The call's request key and its result (any text, usually JSON). */
  call?: { requestKey: string; result: string };
}

/** A {@link SessionStateStore} in Redis, with a per-session lock for fleets. */
export interface RedisSessionStateStore extends SessionStateStore {
  /**
   * Runs `task` while holding the session's lock (a lease in Redis, renewed while `task` runs), so
   * two processes never compact the same session at once: the second waits, then loads the state
   * the first saved. Use it around `maybeCompact` when turns of one session may reach two processes.
   */
  withSessionLock<T>(sessionId: string, task: () => Promise<T>, options?: SessionLockOptions): Promise<T>;
  /**
   * Starts a call under the session lock: the stored state's version (0 when none), and the result
   * stored by the last {@link RedisSessionStateStore.commit} when its request key is `requestKey`
   * (a retried request). Otherwise marks the call as started until its commit. When an earlier call
   * started and never committed (`interrupted`: its holder died or failed), the items it appended
   * to the Redis archive of the same prefix are removed (`rolledBack`): no output names them, and
   * the call redone writes them again. One round trip.
   */
  peek(
    sessionId: string,
    requestKey?: string,
  ): Promise<{ version: number; result?: string; interrupted: boolean; rolledBack: number }>;
  /**
   * Saves, in one atomic compare-and-set on `expectedVersion`, a new state (when given; the
   * version then moves by one) and the result of the call that produced it under its request key,
   * so a retried request can be answered with the same result. Rejects with `STATE_CONFLICT`.
   */
  commit(sessionId: string, commit: SessionCommit): Promise<{ version: number }>;
  /** Closes the connection when the store made it from `url`; a given client stays open. */
  close(): Promise<void>;
}

// KEYS: the state hash, the archive's items list and index hash (same prefix and hash tag).
// The version, and the stored result of the last call when its request key is ARGV[1]. Otherwise
// marks a call as started (field 'pending'; commit clears it). When an earlier call started and
// never committed (its holder died or failed), the archive items it appended after the last commit
// are removed: no client ever got an output naming them, and the call redone writes them again
// exactly as the process that died would have.
const peekScript = luaScript(`
local stored = redis.call('HMGET', KEYS[1], 'version', 'call', 'result', 'pending', 'archived')
if ARGV[1] ~= '' and stored[2] == ARGV[1] then return {stored[1] or '0', stored[3]} end
local rolledBack = 0
if stored[4] then
  local keep = tonumber(stored[5] or '0')
  local orphans = redis.call('LRANGE', KEYS[2], keep, -1)
  for _, json in ipairs(orphans) do redis.call('HDEL', KEYS[3], cjson.decode(json).id) end
  rolledBack = #orphans
  if keep == 0 then redis.call('DEL', KEYS[2]) else redis.call('LTRIM', KEYS[2], 0, keep - 1) end
end
redis.call('HSET', KEYS[1], 'pending', '1')
return {stored[1] or '0', false, stored[4] and 1 or 0, rolledBack}
`);

const loadScript = luaScript(`return redis.call('HMGET', KEYS[1], 'version', 'state')`);

// KEYS[1] the state hash, KEYS[2] the archive's items list (its length is recorded: what the
// committed state knows of), KEYS[3] the archive's index. ARGV: expected version, state JSON (''
// keeps the state and its version), ttl seconds (0: none), request key and result of the call (''
// for none). One atomic step, so a state and the result of the call that produced it are saved
// together or not at all. The archive's keys, when they expire sooner, are given the state's ttl:
// the placeholders the state's session sends name its items, so the archive must live as long (an
// active session that archives nothing new kept its state and lost its archive). An archive kept
// without expiry stays so. Returns the new version, or -1 - the stored version on a conflict.
const commitScript = luaScript(`
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then return -1 - current end
local version = current
if ARGV[2] ~= '' then
  version = current + 1
  redis.call('HSET', KEYS[1], 'version', version, 'state', ARGV[2])
end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'call', ARGV[4], 'result', ARGV[5]) end
redis.call('HDEL', KEYS[1], 'pending')
redis.call('HSET', KEYS[1], 'archived', redis.call('LLEN', KEYS[2]))
local ttl = tonumber(ARGV[3])
if ttl > 0 and redis.call('EXISTS', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ttl) end
if ttl > 0 then
  for i = 2, 3 do
    local left = redis.call('PTTL', KEYS[i])
    if left > 0 and left < ttl * 1000 then redis.call('PEXPIRE', KEYS[i], ttl * 1000) end
  end
end
return version
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
  checkLeaseMs(leaseMs);
  const redis = openRedisConnection(connection);
  const stateKey = (sessionId: string) => sessionKey(prefix, sessionId, 'state');
  const lockKey = (sessionId: string) => sessionKey(prefix, sessionId, 'lock');
  const withLock = createSessionLock(redis, leaseMs);
  // The archive store's keys under the same prefix (see createRedisArchiveStore).
  const itemsKey = (sessionId: string) => sessionKey(prefix, sessionId, 'items');
  const indexKey = (sessionId: string) => sessionKey(prefix, sessionId, 'index');

  async function commit(sessionId: string, { expectedVersion, state, call }: SessionCommit) {
    const what = `saving the state of session ${sessionId}`;
    const args = [
      String(expectedVersion),
      state === undefined ? '' : JSON.stringify(state),
      String(ttl),
      call?.requestKey ?? '',
      call?.result ?? '',
    ];
    const reply = Number(
      await redis.run(
        commitScript,
        [stateKey(sessionId), itemsKey(sessionId), indexKey(sessionId)],
        args,
        what,
      ),
    );
    if (reply < 0) {
      throw new CompactError(
        `session ${sessionId}: state version is ${-1 - reply}, expected ${expectedVersion}; another compactor saved it first`,
        { code: 'STATE_CONFLICT' },
      );
    }
    return { version: reply };
  }

  return {
    specificationVersion: 'v1',
    async load(sessionId) {
      const what = `loading the state of session ${sessionId}`;
      const [version, state] = (await redis.run(loadScript, [stateKey(sessionId)], [], what)) as [
        string | null,
        string | null,
      ];
      return storedStateOf(version, state, stateKey(sessionId));
    },
    async peek(sessionId, requestKey = '') {
      const what = `reading the state version of session ${sessionId}`;
      const keys = [stateKey(sessionId), itemsKey(sessionId), indexKey(sessionId)];
      return peekReplyOf(await redis.run(peekScript, keys, [requestKey], what));
    },
    commit: (sessionId, change) => commit(sessionId, change),
    save: (sessionId, state, { expectedVersion }) => commit(sessionId, { expectedVersion, state }),
    withSessionLock: (sessionId, task, options) => withLock(lockKey(sessionId), sessionId, task, options),
    close: () => redis.close(),
  };
}

/** What {@link peekScript} answers: the version, the stored result, an interrupted call and the items rolled back. */
function peekReplyOf(reply: unknown): Awaited<ReturnType<RedisSessionStateStore['peek']>> {
  const [version, result, interrupted, rolledBack] = reply as [
    string,
    string | null | undefined,
    number | undefined,
    number | undefined,
  ];
  return {
    version: Number(version),
    ...(typeof result === 'string' ? { result } : {}),
    interrupted: interrupted === 1,
    rolledBack: rolledBack ?? 0,
  };
}

function checkLeaseMs(leaseMs: number): void {
  if (!Number.isInteger(leaseMs) || leaseMs <= 0) {
    throw new CompactError(`leaseMs must be a positive whole number, got ${leaseMs}`, {
      code: 'INVALID_OPTIONS',
      path: 'leaseMs',
    });
  }
}

/** The state saved in a session's hash (its `version` and `state` fields), or undefined when none was. */
function storedStateOf(
  version: string | null,
  state: string | null,
  path: string,
): StoredSessionState | undefined {
  if (version === null || state === null) return undefined;
  try {
    return {
      version: Number(version),
      state: JSON.parse(state) as CompactorState,
    } satisfies StoredSessionState;
  } catch (error) {
    throw new CompactError('the stored compactor state is not valid JSON', {
      code: 'ARCHIVE_FAILED',
      path,
      cause: error,
    });
  }
}
