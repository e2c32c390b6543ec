import type { ProviderUsage } from 'agent-compact';
import { checkTtl } from './redis-archive-store.js';
import { luaScript, openRedisConnection, type RedisConnectionOptions } from './redis-connection.js';
import { checkPrefix, DEFAULT_PREFIX, sessionKey } from './redis-keys.js';

/**
 * A proxy's per-conversation state store, the shape of `ProxySessionStore` from
 * `@agent-compact/proxy` (repeated here: subpaths import the core, never each other).
 */
export interface RedisProxySessionStore {
  readonly specificationVersion: 'v1';
  load(sessionKey: string): Promise<RedisProxySessionState | undefined>;
  save(sessionKey: string, state: RedisProxySessionState): Promise<void>;
  delete(sessionKey: string): Promise<void>;
  /** Sessions written within the TTL (all sessions without one). */
  size(): Promise<number>;
  /** Closes the connection when the store made it from `url`. */
  close(): Promise<void>;
}

/** The proxy's state of one conversation (`ProxySessionState`): plain JSON kept as it is. */
export interface RedisProxySessionState {
  covered: string[];
  sent?: unknown[];
  usage?: ProviderUsage;
}

/** Options of {@link createRedisProxySessionStore}. */
export interface RedisProxySessionStoreOptions extends RedisConnectionOptions {
  /** Key prefix, shared with the archive and state stores. @default 'agent-compact:' */
  prefix?: string;
  /** Forget a conversation this many seconds after its last request. Unset: kept. */
  ttlSeconds?: number;
  /**
   * Called instead of throwing when Redis fails: `load` then answers "no state" and `save` /
   * `delete` do nothing, so the proxy forwards the request (uncompacted, as its compaction fails
   * too) instead of failing it. The state stored before the outage is used again once Redis is back.
   * Unset: failures reject with `ARCHIVE_FAILED`.
   */
  onError?: (error: unknown, operation: 'load' | 'save' | 'delete' | 'size') => void;
}

const loadScript = luaScript(`return redis.call('GET', KEYS[1])`);

// KEYS[1] the state; ARGV: state JSON, ttl seconds (0: none).
const saveScript = luaScript(`
if tonumber(ARGV[2]) > 0 then
  return redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
end
return redis.call('SET', KEYS[1], ARGV[1])
`);

const deleteScript = luaScript(`return redis.call('DEL', KEYS[1])`);

// The session list is one sorted set (last write time), apart from the sessions' slots.
// KEYS[1] the set; ARGV: 'add' | 'remove' | 'count', member, now ms, ttl ms.
const sessionsScript = luaScript(`
if ARGV[1] == 'add' then return redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2]) end
if ARGV[1] == 'remove' then return redis.call('ZREM', KEYS[1], ARGV[2]) end
if tonumber(ARGV[4]) > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[4]))
end
return redis.call('ZCARD', KEYS[1])
`);

/**
 * The `agent-compact proxy` conversation store in Redis, so proxy replicas behind a load balancer
 * share conversations: any replica can serve any request of any conversation. Pass it as the
 * proxy's `store`, with a Redis archive and state store of the same prefix (the CLI's
 * `--store redis://…` does).
 *
 * @example
 * const store = createRedisProxySessionStore({ url, onError: (error) => console.warn(error) });
 * const proxy = await startProxy({ upstream, store, archive, stateStore });
 */
export function createRedisProxySessionStore({
  prefix = DEFAULT_PREFIX,
  ttlSeconds,
  onError,
  ...connection
}: RedisProxySessionStoreOptions): RedisProxySessionStore {
  checkPrefix(prefix);
  const ttl = checkTtl(ttlSeconds);
  const redis = openRedisConnection(connection);
  const stateKey = (key: string) => sessionKey(prefix, key, 'proxy');
  const sessionsKey = `${prefix}proxy-sessions`;
  const sessions = (operation: string, member = '') =>
    redis.run(
      sessionsScript,
      [sessionsKey],
      [operation, member, String(Date.now()), String(ttl * 1000)],
      'updating the proxy session list',
    );

  /** Runs `task`; with `onError`, a failure is reported and `fallback` returned instead. */
  async function softly<T>(
    operation: 'load' | 'save' | 'delete' | 'size',
    fallback: T,
    task: () => Promise<T>,
  ) {
    try {
      return await task();
    } catch (error) {
      if (!onError) throw error;
      onError(error, operation);
      return fallback;
    }
  }

  return {
    specificationVersion: 'v1',
    load: (key) =>
      softly('load', undefined, async () => {
        const reply = await redis.run(loadScript, [stateKey(key)], [], 'loading a proxy session');
        return typeof reply === 'string' ? (JSON.parse(reply) as RedisProxySessionState) : undefined;
      }),
    save: (key, state) =>
      softly('save', undefined, async () => {
        const args = [JSON.stringify(state), String(ttl)];
        await redis.run(saveScript, [stateKey(key)], args, 'saving a proxy session');
        await sessions('add', key);
      }),
    delete: (key) =>
      softly('delete', undefined, async () => {
        await redis.run(deleteScript, [stateKey(key)], [], 'deleting a proxy session');
        await sessions('remove', key);
      }),
    size: () => softly('size', 0, async () => Number(await sessions('count'))),
    close: () => redis.close(),
  };
}
