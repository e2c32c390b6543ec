import type { ArchiveItem, ArchiveStore } from 'agent-compact';
import { CompactError } from 'agent-compact';
import { groupItemsBySession } from 'agent-compact/archive';
import { luaScript, openRedisConnection, type RedisConnectionOptions } from './redis-connection.js';
import { checkPrefix, DEFAULT_PREFIX, sessionKey } from './redis-keys.js';

/** Options of {@link createRedisArchiveStore}. */
export interface RedisArchiveStoreOptions extends RedisConnectionOptions {
  /**
   * Prepended to every key; keys are `<prefix>{<session id>}:items` and `…:index`.
   * @default 'agent-compact:'
   */
  prefix?: string;
  /**
   * Delete a session's archive this many seconds after its last write. Unset: kept until deleted.
   * Set it longer than a session can sit idle: an expired archive cannot be recalled or rebuilt. A
   * Redis state store of the same prefix and a ttl extends it to its own on every save.
   */
  ttlSeconds?: number;
}

/** An archive store in Redis; {@link RedisArchiveStore.close} closes a client it made from a URL. */
export interface RedisArchiveStore extends ArchiveStore {
  /** Closes the connection when the store made it from `url`; a given client stays open. */
  close(): Promise<void>;
}

// KEYS[1] the index hash (id -> position), KEYS[2] the items list (JSON, append order).
// ARGV[1] ttl seconds (0: none), then id and JSON pairs. Checks every item before writing any, so a
// conflict writes nothing; a retried item with the same bytes is skipped.
const appendScript = luaScript(`
local ttl = tonumber(ARGV[1])
local fresh, seen = {}, {}
for i = 2, #ARGV, 2 do
  local id, json = ARGV[i], ARGV[i + 1]
  if seen[id] then
    if seen[id] ~= json then return 'conflict:' .. id end
  else
    local position = redis.call('HGET', KEYS[1], id)
    if position then
      if redis.call('LINDEX', KEYS[2], position) ~= json then return 'conflict:' .. id end
    else
      fresh[#fresh + 1] = i
    end
    seen[id] = json
  end
end
for _, i in ipairs(fresh) do
  local length = redis.call('RPUSH', KEYS[2], ARGV[i + 1])
  redis.call('HSET', KEYS[1], ARGV[i], length - 1)
end
if ttl > 0 and #fresh > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return #fresh
`);

const getScript = luaScript(`
local position = redis.call('HGET', KEYS[1], ARGV[1])
if not position then return false end
return redis.call('LINDEX', KEYS[2], position)
`);

const listScript = luaScript(`return redis.call('LRANGE', KEYS[1], 0, -1)`);

// ARGV[1] the cursor, ARGV[2] the pattern of the items keys. One SCAN step: { next cursor, keys }.
const scanScript = luaScript(`return redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', 1000)`);

/**
 * An {@link ArchiveStore} in Redis (or Valkey, or Redis Cluster), so every process of a fleet can
 * recall and rebuild what any other archived. Appends are atomic and idempotent (one Lua script per
 * session): a retried put of the same id with the same bytes is a no-op, with different bytes an
 * `ARCHIVE_FAILED` error that writes nothing. `list` returns items in append order. A session's keys
 * share one hash tag, so they sit in one Cluster slot. Redis down or slow: `ARCHIVE_FAILED` after
 * `timeoutMs`, and the compactor leaves the context unchanged.
 *
 * @example
 * const archive = createRedisArchiveStore({ url: process.env.REDIS_URL });
 * const compactor = createCompactor({ archive, sessionId: 'task-42' });
 * // … on shutdown
 * await archive.close();
 */
export function createRedisArchiveStore({
  prefix = DEFAULT_PREFIX,
  ttlSeconds,
  ...connection
}: RedisArchiveStoreOptions): RedisArchiveStore {
  checkPrefix(prefix);
  const ttl = checkTtl(ttlSeconds);
  const redis = openRedisConnection(connection);
  const keys = (sessionId: string) => [
    sessionKey(prefix, sessionId, 'index'),
    sessionKey(prefix, sessionId, 'items'),
  ];

  async function append(sessionId: string, items: readonly ArchiveItem[]): Promise<void> {
    const args = [String(ttl)];
    for (const item of items) args.push(item.id, JSON.stringify(item));
    const what = `appending ${items.length} item(s) to the archive of session ${sessionId}`;
    const reply = await redis.run(appendScript, keys(sessionId), args, what);
    if (typeof reply === 'string' && reply.startsWith('conflict:')) {
      throw new CompactError(
        `archive item ${JSON.stringify(reply.slice('conflict:'.length))} of session ${sessionId} is already stored with different content; nothing was written`,
        { code: 'ARCHIVE_FAILED', path: `${sessionId}/${reply.slice('conflict:'.length)}` },
      );
    }
  }

  return {
    specificationVersion: 'v1',
    async put(items) {
      const bySession = groupItemsBySession(items);
      await Promise.all([...bySession].map(([sessionId, list]) => append(sessionId, list)));
    },
    async get(sessionId, id) {
      const what = `reading item ${id} of session ${sessionId}`;
      const reply = await redis.run(getScript, keys(sessionId), [id], what);
      return typeof reply === 'string' ? parseItem(reply, sessionId, id) : undefined;
    },
    async list(sessionId) {
      const what = `listing the archive of session ${sessionId}`;
      const reply = await redis.run(listScript, [keys(sessionId)[1]!], [], what);
      return (reply as string[]).map((json, position) => parseItem(json, sessionId, String(position)));
    },
    async sessions() {
      // SCAN runs on the node the script lands on: with a Cluster client, that node's sessions only.
      const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}{*}:items`;
      const found = new Set<string>();
      let cursor = '0';
      do {
        const reply = (await redis.run(scanScript, [], [cursor, pattern], 'listing sessions')) as [
          string,
          string[],
        ];
        cursor = String(reply[0]);
        for (const key of reply[1]) {
          const sessionId = decodedSessionId(key.slice(prefix.length + 1, -'}:items'.length));
          if (sessionId !== undefined) found.add(sessionId);
        }
      } while (cursor !== '0');
      return [...found].sort();
    },
    close: () => redis.close(),
  };
}

/**
 * The session id of a key's hash tag, or undefined for a key the store did not write: a tag that is
 * not percent-encoded text (`{%E0}`) would make decodeURIComponent throw a raw URIError, and one
 * such key made every listing fail.
 */
function decodedSessionId(tag: string): string | undefined {
  try {
    return decodeURIComponent(tag);
  } catch {
    return undefined;
  }
}

function parseItem(json: string, sessionId: string, where: string): ArchiveItem {
  try {
    return JSON.parse(json) as ArchiveItem;
  } catch (error) {
    throw new CompactError('a stored archive item is not valid JSON; the archive is damaged', {
      code: 'ARCHIVE_FAILED',
      path: `${sessionId}/${where}`,
      cause: error,
    });
  }
}

/** Checks `ttlSeconds`; 0 means "no expiry" to the scripts. */
export function checkTtl(ttlSeconds: number | undefined): number {
  if (ttlSeconds === undefined) return 0;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new CompactError(`ttlSeconds must be a positive whole number, got ${ttlSeconds}`, {
      code: 'INVALID_OPTIONS',
      path: 'ttlSeconds',
    });
  }
  return ttlSeconds;
}
