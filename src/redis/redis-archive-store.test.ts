import { inspect } from 'node:util';
import { createClient, createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArchiveItem } from '../core/archive/archive-store.js';
import { createCompactor } from '../core/compactor.js';
import { CompactError } from '../core/model/errors.js';
import type { Message } from '../core/model/messages.js';
import type { RedisServer } from '../testing/redis-server.js';
import { createRedisArchiveStore, type RedisArchiveStore } from './index.js';
import { skipRedis, startTestRedis } from './redis-server.test-utils.js';

const item = (id: string, sessionId = 's1', text = `content ${id}`): ArchiveItem => ({
  id,
  sessionId,
  kind: 'tool-result',
  createdAt: 1,
  toolUseId: `toolu_${id}`,
  block: { type: 'tool_result', tool_use_id: `toolu_${id}`, content: text },
});

const codeOf = (error: unknown) => (CompactError.isInstance(error) ? error.code : String(error));

let server: RedisServer;
let prefixCount = 0;
const stores: RedisArchiveStore[] = [];
/** A store on the shared server with its own prefix, so tests never see each other's keys. */
function store(options: { prefix?: string; ttlSeconds?: number; timeoutMs?: number } = {}) {
  const created = createRedisArchiveStore({
    url: server.url,
    prefix: `t${prefixCount++}:`,
    ...options,
  });
  stores.push(created);
  return created;
}

describe.skipIf(skipRedis)('createRedisArchiveStore', () => {
  beforeAll(async () => {
    server = await startTestRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((each) => each.close()));
    await server?.stop();
  });

  it('appends items and lists them in append order from another store', async () => {
    const writer = store({ prefix: 'order:' });
    await writer.put([item('r1'), item('r2')]);
    await writer.put([item('r3')]);
    const reader = store({ prefix: 'order:' });
    expect((await reader.list('s1')).map((entry) => entry.id)).toEqual(['r1', 'r2', 'r3']);
    expect(await reader.get('s1', 'r2')).toEqual(item('r2'));
    expect(await reader.get('s1', 'r9')).toBeUndefined();
    expect(await reader.list('never-written')).toEqual([]);
  });

  it('lists the sessions under its own prefix only, decoding odd session ids', async () => {
    const mine = store();
    const other = store();
    await mine.put([item('r1', 'task-1'), item('r2', 'a{b}:c d'), item('r3', 'task-1')]);
    await other.put([item('r1', 'elsewhere')]);
    expect(await mine.sessions!()).toEqual(['a{b}:c d', 'task-1']);
    expect(await other.sessions!()).toEqual(['elsewhere']);
  });

  it('lists its sessions past a key under its prefix that it did not write', async () => {
    const archive = store({ prefix: 'foreign:' });
    await archive.put([item('r1', 'task-1')]);
    const client = createClient({ url: server.url });
    await client.connect();
    await client.rPush('foreign:{%E0%A4}:items', 'not an item');
    expect(await archive.sessions!()).toEqual(['task-1']);
    client.destroy();
  });

  it('is idempotent: the same id with the same bytes is a no-op', async () => {
    const archive = store();
    await archive.put([item('r1'), item('r2')]);
    await archive.put([item('r2'), item('r1'), item('r3')]);
    expect((await archive.list('s1')).map((entry) => entry.id)).toEqual(['r1', 'r2', 'r3']);
  });

  it('refuses the same id with different bytes and writes nothing of that put', async () => {
    const archive = store();
    await archive.put([item('r1')]);
    const error = await archive
      .put([item('r2'), item('r1', 's1', 'something else')])
      .catch((caught: unknown) => caught);
    expect(codeOf(error)).toBe('ARCHIVE_FAILED');
    expect((error as Error).message).toMatch(/"r1" of session s1 is already stored with different content/);
    // Two different items under one id in a single put are refused the same way.
    await expect(archive.put([item('r5'), item('r5', 's1', 'other')])).rejects.toThrow(/"r5"/);
    expect((await archive.list('s1')).map((entry) => entry.id)).toEqual(['r1']);
  });

  it('keeps sessions apart under concurrent writes from several clients', async () => {
    const writers = [store({ prefix: 'apart:' }), store({ prefix: 'apart:' }), store({ prefix: 'apart:' })];
    await Promise.all(
      Array.from({ length: 50 }, (_, session) =>
        Promise.all(
          Array.from({ length: 6 }, (_, index) =>
            writers[index % writers.length]!.put([item(`r${index}`, `s${session}`, `s${session}-${index}`)]),
          ),
        ),
      ),
    );
    const reader = store({ prefix: 'apart:' });
    for (let session = 0; session < 50; session++) {
      const items = await reader.list(`s${session}`);
      expect(new Set(items.map((entry) => entry.id)).size).toBe(6);
      for (const entry of items) {
        expect(entry.sessionId).toBe(`s${session}`);
        expect(JSON.stringify(entry.block)).toContain(`"s${session}-`);
      }
    }
  });

  it('puts items of several sessions in one call, each to its own session', async () => {
    const archive = store();
    await archive.put([item('r1', 'a'), item('r1', 'b', 'b content'), item('r2', 'a')]);
    expect((await archive.list('a')).map((entry) => entry.id)).toEqual(['r1', 'r2']);
    expect(await archive.get('b', 'r1')).toEqual(item('r1', 'b', 'b content'));
  });

  it.each(['with space', 'brace}{tag', 'ünïcode/slash', '{s1}'])(
    'stores the session id %j under one hash tag, apart from s1',
    async (sessionId) => {
      const prefix = `ids${prefixCount}:`;
      const archive = store({ prefix });
      await archive.put([item('r1', 's1'), item('r1', sessionId, 'mine')]);
      expect(await archive.get(sessionId, 'r1')).toEqual(item('r1', sessionId, 'mine'));
      expect(await archive.get('s1', 'r1')).toEqual(item('r1', 's1'));
      const client = createClient({ url: server.url });
      await client.connect();
      const keys = await client.keys(`${prefix}*`);
      client.destroy();
      const tags = new Set(keys.map((key) => /\{([^}]*)\}/.exec(key)?.[1]));
      expect(tags).toEqual(new Set(['s1', encodeURIComponent(sessionId)]));
    },
  );

  it('sets the TTL on every write when ttlSeconds is given', async () => {
    const archive = store({ prefix: 'ttl:', ttlSeconds: 3600 });
    await archive.put([item('r1')]);
    const client = createClient({ url: server.url });
    await client.connect();
    for (const key of await client.keys('ttl:*')) {
      const ttl = await client.ttl(key);
      expect(ttl).toBeGreaterThan(3500);
      expect(ttl).toBeLessThanOrEqual(3600);
    }
    client.destroy();
  });

  it.each([
    [{ prefix: 'a{b}:' }, /may not contain/],
    [{ ttlSeconds: 0 }, /ttlSeconds/],
    [{ ttlSeconds: 1.5 }, /ttlSeconds/],
  ])('refuses bad options %j', (options, message) => {
    expect(() => createRedisArchiveStore({ url: 'redis://127.0.0.1:1', ...options })).toThrow(message);
  });

  it('refuses an empty session id', async () => {
    await expect(store().put([item('r1', '')])).rejects.toThrow(/non-empty/);
  });

  it('uses a client it was given and leaves it open on close', async () => {
    const client = createClient({ url: server.url });
    await client.connect();
    const archive = createRedisArchiveStore({ client, prefix: 'given:' });
    await archive.put([item('r1')]);
    await archive.close();
    expect(client.isOpen).toBe(true);
    expect(await client.lLen('given:{s1}:items')).toBe(1);
    client.destroy();
  });
});

describe.skipIf(skipRedis)('Redis down, slow, and coming back', () => {
  const messages = (): Message[] => [
    { role: 'user', content: 'read the file' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x '.repeat(4000) }] },
    { role: 'assistant', content: 'done' },
    { role: 'user', content: 'next' },
  ];

  it('fails with ARCHIVE_FAILED and the context unchanged, then recovers when Redis is back', async () => {
    let down = await startTestRedis();
    const archive = createRedisArchiveStore({ url: down.url, timeoutMs: 1000 });
    const compactor = createCompactor({ archive, sessionId: 'outage', hard: { retryDelayMs: 0 } });
    // The first call reads the session's archive; the failure below is then the archive write.
    expect((await compactor.maybeCompact(messages().slice(0, 1))).layer).toBe('none');
    await down.stop({ keepData: true });
    const input = messages();
    const snapshot = structuredClone(input);
    const error = await compactor.maybeCompact(input, { force: 'hard' }).catch((caught: unknown) => caught);
    expect(codeOf(error)).toBe('ARCHIVE_FAILED');
    expect(input).toEqual(snapshot);
    down = await startTestRedis({ port: down.port, directory: down.directory });
    // The client reconnects on its own; the next call goes through.
    let result: Awaited<ReturnType<typeof compactor.maybeCompact>> | undefined;
    for (let attempt = 0; attempt < 50 && !result; attempt++) {
      result = await compactor.maybeCompact(input, { force: 'hard' }).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return undefined;
      });
    }
    expect(result?.layer).toBe('hard');
    expect((await archive.list('outage')).length).toBeGreaterThan(0);
    await archive.close();
    await down.stop();
  });

  it('times out on a Redis that does not answer (SIGSTOP) with ARCHIVE_FAILED', async () => {
    const frozen = await startTestRedis();
    const archive = createRedisArchiveStore({ url: frozen.url, timeoutMs: 300 });
    // Connected first: on a loaded machine the first call may itself miss 300 ms, and what must
    // time out below is the frozen server, not the connection.
    for (let attempt = 1; ; attempt++) {
      const listed = await archive.list('s1').then(
        () => true,
        (error: unknown) => (attempt < 20 ? false : Promise.reject(error)),
      );
      if (listed) break;
    }
    process.kill(frozen.pid, 'SIGSTOP');
    try {
      const error = await archive.put([item('r1')]).catch((caught: unknown) => caught);
      expect(codeOf(error)).toBe('ARCHIVE_FAILED');
      expect((error as Error).message).toMatch(/did not answer within 300 ms/);
    } finally {
      process.kill(frozen.pid, 'SIGCONT');
    }
    await archive.close();
    await frozen.stop();
  });

  it('never shows the password of the URL in errors (down, wrong password, bad URL)', async () => {
    const password = 'Pa55-w0rd-secret';
    const guarded = await startTestRedis({ password });
    const cases: [string, () => Promise<unknown>][] = [
      [
        'wrong password',
        () =>
          createRedisArchiveStore({
            url: `redis://:${password}x@127.0.0.1:${guarded.port}`,
            timeoutMs: 500,
          }).list('s1'),
      ],
      [
        'refused',
        () => createRedisArchiveStore({ url: `redis://:${password}@127.0.0.1:1`, timeoutMs: 500 }).list('s1'),
      ],
      [
        'user and password',
        () =>
          createRedisArchiveStore({ url: `redis://default:${password}@127.0.0.1:1`, timeoutMs: 500 }).list(
            's1',
          ),
      ],
      [
        'bad url',
        async () =>
          createRedisArchiveStore({ url: `redis://:${password}@127.0.0.1:notaport`, timeoutMs: 500 }),
      ],
    ];
    for (const [name, attempt] of cases) {
      const error = await attempt().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(codeOf(error), name).toBe('ARCHIVE_FAILED');
      const shown = `${String(error)}\n${(error as Error).stack}\n${inspect(error, { depth: 10 })}`;
      expect(shown, name).not.toContain(password);
      expect(shown, name).toContain('***@127.0.0.1');
    }
    await guarded.stop();
  });
});

describe.skipIf(skipRedis)('Redis Cluster', () => {
  it('works on a cluster: every script touches keys of one slot', async () => {
    const node = await startTestRedis({ extraArgs: ['--cluster-enabled', 'yes'] });
    const admin = createClient({ url: node.url });
    await admin.connect();
    await admin.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', '0', '16383']);
    for (let attempt = 0; attempt < 50; attempt++) {
      if (String(await admin.sendCommand(['CLUSTER', 'INFO'])).includes('cluster_state:ok')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A cross-slot script is refused on this node, so the check below proves the hash tags.
    await expect(admin.eval('return 1', { keys: ['a', 'b'] })).rejects.toThrow(/CROSSSLOT/);
    admin.destroy();
    const cluster = createCluster({ rootNodes: [{ url: node.url }] });
    cluster.on('error', () => {});
    await cluster.connect();
    const archive = createRedisArchiveStore({ client: cluster });
    await archive.put([item('r1', 'c1'), item('r2', 'c1'), item('r1', 'c2')]);
    expect((await archive.list('c1')).map((entry) => entry.id)).toEqual(['r1', 'r2']);
    expect(await archive.get('c2', 'r1')).toEqual(item('r1', 'c2'));
    await cluster.close();
    await node.stop();
  });
});
