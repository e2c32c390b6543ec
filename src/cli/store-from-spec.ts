import type { ArchiveStore, SessionStateStore } from 'agent-compact';
import { CliError } from './cli-io.js';

/** Where a CLI command keeps archives and compactor state, from its `--store` option. */
export interface OpenedStore {
  /** The archive store, or undefined for the command's default (the session folder). */
  archive?: ArchiveStore;
  /** The compactor state store, or undefined when state stays in the process. */
  stateStore?: SessionStateStore;
  /** The proxy's conversation store (only with `forProxy`), or undefined for its default. */
  proxyStore?: import('@agent-compact/redis').RedisProxySessionStore;
  /** For status lines: the URL with its password replaced by `***`. */
  description: string;
  close(): Promise<void>;
}

/**
 * Opens the store a `--store` value names: `redis://…` or `rediss://…` (archive and compactor state
 * in Redis, shared by every process that names the same URL). Undefined keeps the default.
 * Throws a {@link CliError} for any other value, or when the `redis` package is not installed.
 */
export async function openStoreFromSpec(
  spec: string | undefined,
  {
    forProxy,
    env = {},
    ttlSeconds,
  }: {
    /** Also open the proxy's conversation store; Redis failures go to `warn` instead of failing the request. */
    forProxy?: { warn: (line: string) => void };
    /** Where {@link REDIS_PASSWORD_ENV} is read from. */
    env?: Record<string, string | undefined>;
    /** Every key of a session expires this long after its last write (`--store-ttl`); none when undefined. */
    ttlSeconds?: number;
  } = {},
): Promise<OpenedStore> {
  if (spec === undefined) return { description: 'local files', close: async () => {} };
  if (!/^rediss?:\/\//i.test(spec)) {
    throw new CliError('--store takes a Redis URL: redis://[:password@]host[:port][/db] or rediss://…', 2);
  }
  let redis: typeof import('@agent-compact/redis');
  try {
    redis = await import('@agent-compact/redis');
  } catch {
    throw new CliError('--store redis://… needs the Redis stores: npm install @agent-compact/redis redis', 2);
  }
  const description = redis.redactUrl(spec);
  const url = withPassword(spec, env[REDIS_PASSWORD_ENV]);
  const ttl = ttlSeconds === undefined ? {} : { ttlSeconds };
  const archive = redis.createRedisArchiveStore({ url, ...ttl });
  const stateStore = redis.createRedisSessionStateStore({ url, ...ttl });
  const proxyStore = forProxy
    ? redis.createRedisProxySessionStore({
        url,
        ...ttl,
        // The message is password-free (see redactUrl); the request goes on uncompacted.
        onError: (error, operation) =>
          forProxy.warn(
            `warning: Redis ${operation} failed, forwarding without compaction: ${error instanceof Error ? error.message : String(error)}`,
          ),
      })
    : undefined;
  return {
    archive,
    stateStore,
    ...(proxyStore ? { proxyStore } : {}),
    description,
    async close() {
      await Promise.all([archive.close(), stateStore.close(), proxyStore?.close()]);
    },
  };
}

/**
 * The environment variable with the Redis password, so it need not be in the `--store` URL, which
 * any user of the machine sees in `ps`. A password in the URL wins.
 */
export const REDIS_PASSWORD_ENV = 'AGENT_COMPACT_REDIS_PASSWORD';

/** `spec` with `password` put in, unless it has one or `password` is unset. */
function withPassword(spec: string, password: string | undefined): string {
  if (password === undefined || password === '') return spec;
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    // The store reports the malformed URL, password-free.
    return spec;
  }
  if (url.password !== '') return spec;
  url.password = encodeURIComponent(password);
  return url.toString();
}
