/**
 * Redis stores for fleets: the archive and the compactor's session state in Redis (or Valkey, or
 * Redis Cluster), so any process can continue any session. Needs the `redis` package (an optional
 * peer dependency): `npm install redis`.
 *
 * @module @agent-compact/redis
 */
export {
  createRedisArchiveStore,
  type RedisArchiveStore,
  type RedisArchiveStoreOptions,
} from './redis-archive-store.js';
export {
  DEFAULT_TIMEOUT_MS,
  type RedisConnectionOptions,
  type RedisScriptClient,
  redactUrl,
} from './redis-connection.js';
export { DEFAULT_PREFIX } from './redis-keys.js';
export {
  createRedisProxySessionStore,
  type RedisProxySessionState,
  type RedisProxySessionStore,
  type RedisProxySessionStoreOptions,
} from './redis-proxy-session-store.js';
export { DEFAULT_LOCK_WAIT_MS, type SessionLockOptions } from './redis-session-lock.js';
export {
  createRedisSessionStateStore,
  DEFAULT_LEASE_MS,
  type RedisSessionStateStore,
  type RedisSessionStateStoreOptions,
  type SessionCommit,
} from './redis-session-state-store.js';
export {
  createSharedCompactor,
  DEFAULT_MAX_WARM_SESSIONS,
  requestKeyOf,
  type SharedCompactor,
  type SharedCompactorOptions,
} from './shared-compactor.js';
