import { createHash } from 'node:crypto';
import { CompactError } from 'agent-compact';
import { createClient } from 'redis';

/** How long one store call may wait for Redis (connecting included) before it fails. */
export const DEFAULT_TIMEOUT_MS = 5_000;
/** How long the one call that probes a Redis known down waits for its answer. */
const PROBE_WAIT_MS = 50;
/** The longest pause between two reconnection attempts of a client the store made. */
const MAX_RECONNECT_DELAY_MS = 2_000;
/** Pause per failed attempt before the next one (grows linearly up to the maximum). */
const RECONNECT_STEP_MS = 100;

/**
 * What the Redis stores need from a client: Lua scripts by body and by SHA1. The official
 * `redis` package's client (`createClient`) and cluster client (`createCluster`) both fit.
 */
export interface RedisScriptClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** How to reach Redis: a URL (the store makes, connects and closes its own client) or a client. */
export interface RedisConnectionOptions {
  /**
   * `redis://[[user]:password@]host[:port][/db]` or `rediss://…` for TLS. The password never
   * appears in errors.
   */
  url?: string;
  /** A client you own (connected by you, closed by you); e.g. `createClient()` or `createCluster()`. */
  client?: RedisScriptClient;
  /**
   * How long one call may wait for Redis before it fails with `ARCHIVE_FAILED`.
   * @default 5000
   */
  timeoutMs?: number;
}

/** A Lua script the stores run, with its SHA1 so Redis can run it from its cache. */
export interface LuaScript {
  readonly body: string;
  readonly sha1: string;
}

/** Makes a {@link LuaScript}. */
export function luaScript(body: string): LuaScript {
  return { body, sha1: createHash('sha1').update(body).digest('hex') };
}

/** One Redis endpoint shared by the stores' calls. */
export interface RedisConnection {
  /** Runs a script; rejects with `ARCHIVE_FAILED` (password-free) on any failure or timeout. */
  run(script: LuaScript, keys: string[], args: string[], what: string): Promise<unknown>;
  /** Closes the client when the connection made it; a given client is left to its owner. */
  close(): Promise<void>;
  /** Where it connects, password removed: for messages and logs. */
  readonly where: string;
}

/** Replaces the password (and user) of a Redis URL by `***`; other text passes through. */
export function redactUrl(url: string): string {
  return url.replace(/^(rediss?:\/\/)([^@/]*)@/i, (_, scheme: string) => `${scheme}***@`);
}

/** Opens a {@link RedisConnection} from a URL or a client. */
export function openRedisConnection({
  url,
  client,
  timeoutMs = DEFAULT_TIMEOUT_MS,
}: RedisConnectionOptions): RedisConnection {
  if ((url === undefined) === (client === undefined)) {
    throw new CompactError('pass exactly one of url and client', { code: 'INVALID_OPTIONS' });
  }
  const { where, scrub, fail } = failuresAt(url);

  const owned = url === undefined ? undefined : ownClient(url, timeoutMs, fail);
  let connecting: Promise<unknown> | undefined;
  let closed = false;
  const ready = async (): Promise<RedisScriptClient> => {
    if (!owned) return client as RedisScriptClient;
    // A call after close() would open the connection again, and keep the process alive for ever.
    if (closed) throw fail('the store was closed');
    if (!owned.isOpen) connecting ??= owned.connect().finally(() => (connecting = undefined));
    if (connecting) await connecting;
    return owned as unknown as RedisScriptClient;
  };

  // The circuit breaker: after a failure Redis is known down, and calls fail at once instead of
  // each waiting `timeoutMs`; one call at a time still goes to Redis as a probe, and the first that
  // succeeds closes the breaker.
  let down = false;
  let probing = false;
  const attempt = async (script: LuaScript, keys: string[], args: string[], what: string) => {
    try {
      const result = await callWithTimeout(
        () => evalScript(ready, script, keys, args),
        timeoutMs,
        () => fail(`${what}: Redis did not answer within ${timeoutMs} ms`),
      );
      down = false;
      return result;
    } catch (error) {
      down = true;
      if (CompactError.isInstance(error)) throw error;
      throw fail(`${what} failed: ${scrub(String((error as Error)?.message ?? error))}`, error);
    }
  };

  return {
    where,
    async run(script, keys, args, what) {
      if (!down) return attempt(script, keys, args, what);
      const downError = () =>
        fail(`${what}: Redis is down (an earlier call failed); not waiting until it answers again`);
      if (probing) throw downError();
      probing = true;
      const probe = attempt(script, keys, args, what).finally(() => {
        probing = false;
      });
      // The probe's caller waits a moment only: a Redis that is back answers well within it.
      return callWithTimeout(() => probe, Math.min(PROBE_WAIT_MS, timeoutMs), downError);
    },
    async close() {
      closed = true;
      if (!owned) return;
      const opening = connecting;
      if (owned.isOpen && opening === undefined) await owned.close().catch(() => destroy(owned));
      else destroy(owned);
      // A connection still being made when close() came could open after it (a store closed while
      // its first call connects: the process never exited); it is ended once it settles.
      opening?.then(
        () => destroy(owned),
        () => destroy(owned),
      );
    },
  };
}

/**
 * How a connection names itself in errors (its URL without the password) and builds them: every
 * secret of the URL scrubbed from the message and the cause.
 */
function failuresAt(url: string | undefined): {
  where: string;
  scrub: (text: string) => string;
  fail: (message: string, error?: unknown) => CompactError;
} {
  const where = url === undefined ? 'the given Redis client' : `Redis at ${redactUrl(url)}`;
  const secrets = url === undefined ? [] : secretsOf(url);
  const scrub = (text: string) => secrets.reduce((result, secret) => result.split(secret).join('***'), text);
  const fail = (message: string, error?: unknown) =>
    new CompactError(`${message} (${where})`, {
      code: 'ARCHIVE_FAILED',
      ...(error === undefined ? {} : { cause: scrubbedError(error, scrub) }),
    });
  return { where, scrub, fail };
}

/** Runs a script by SHA1, sending its body once when the server does not have it yet. */
async function evalScript(
  ready: () => Promise<RedisScriptClient>,
  script: LuaScript,
  keys: string[],
  args: string[],
): Promise<unknown> {
  const target = await ready();
  try {
    return await target.evalSha(script.sha1, { keys, arguments: args });
  } catch (error) {
    // First run on this server (or after a SCRIPT FLUSH): send the body once.
    if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
    return target.eval(script.body, { keys, arguments: args });
  }
}

/** `call()`, or `timedOut()` as a rejection once `timeoutMs` passed first. */
async function callWithTimeout<T>(
  call: () => Promise<T>,
  timeoutMs: number,
  timedOut: () => Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), timeoutMs);
  });
  const running = call();
  try {
    return await Promise.race([running, timeout]);
  } finally {
    clearTimeout(timer);
    // A call that lost the race must not surface later as an unhandled rejection.
    running.catch(() => {});
  }
}

type OwnedClient = ReturnType<typeof createClient>;

/** Ends a client's connection now; one already ended stays so. */
function destroy(client: OwnedClient): void {
  try {
    client.destroy();
  } catch {
    // Already closed.
  }
}

function ownClient(
  url: string,
  timeoutMs: number,
  fail: (message: string, error?: unknown) => CompactError,
): OwnedClient {
  let client: OwnedClient;
  try {
    client = createClient({
      url,
      // Fail fast while disconnected instead of queueing commands until Redis is back.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: timeoutMs,
        reconnectStrategy: (retries: number) =>
          Math.min((retries + 1) * RECONNECT_STEP_MS, MAX_RECONNECT_DELAY_MS),
      },
    });
  } catch (error) {
    throw fail('the Redis URL is not valid', error);
  }
  // node-redis emits connection errors as events; without a listener they would crash the process.
  // Each call reports its own failure, so they are dropped here.
  client.on('error', () => {});
  return client;
}

/** The password and user of a URL, and their percent-decoded forms, to scrub from any text. */
function secretsOf(url: string): string[] {
  const match = /^rediss?:\/\/([^@/]*)@/i.exec(url);
  if (!match?.[1]) return [];
  const parts = match[1].split(':').filter((part) => part.length > 0);
  const decoded = parts.map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  // Longest first, so a password that contains the user name is replaced whole.
  return [...new Set([match[1], ...parts, ...decoded])].sort((a, b) => b.length - a.length);
}

/** A copy of an error (and its causes) with every secret scrubbed and no extra fields (e.g. `input`). */
function scrubbedError(error: unknown, scrub: (text: string) => string): Error {
  const original = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(scrub(original.message), {
    ...(original.cause === undefined ? {} : { cause: scrubbedError(original.cause, scrub) }),
  });
  copy.name = original.name;
  copy.stack = scrub(original.stack ?? copy.stack ?? '');
  return copy;
}
