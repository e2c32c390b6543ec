import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArchiveItem } from '../core/archive/archive-store.js';
import { COMPACTOR_STATE_SCHEMA, type CompactorState } from '../core/archive/session-state-store.js';
import { CompactError } from '../core/model/errors.js';
import type { RedisServer } from '../testing/redis-server.js';
import {
  createRedisArchiveStore,
  createRedisSessionStateStore,
  type RedisSessionStateStore,
} from './index.js';
import { skipRedis, startTestRedis } from './redis-server.test-utils.js';

const state = (next: number): CompactorState => ({
  schema: COMPACTOR_STATE_SCHEMA,
  ids: { next, keys: { [`k${next}`]: `r${next}` } },
  counter: { overallRatio: 1, weightedSamples: 0, weights: 0, reports: 0 },
  breaker: { hardOnLastCall: false },
});

const result = (id: string, sessionId: string): ArchiveItem => ({
  id,
  sessionId,
  kind: 'tool-result',
  createdAt: 1,
  toolUseId: `toolu_${id}`,
  block: { type: 'tool_result', tool_use_id: `toolu_${id}`, content: `output ${id}` },
});

const codeOf = (error: unknown) => (CompactError.isInstance(error) ? error.code : String(error));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: RedisServer;
let prefixCount = 0;
const stores: RedisSessionStateStore[] = [];
function store(options: { prefix?: string; leaseMs?: number; ttlSeconds?: number } = {}) {
  const created = createRedisSessionStateStore({
    url: server.url,
    prefix: `st${prefixCount++}:`,
    ...options,
  });
  stores.push(created);
  return created;
}

describe.skipIf(skipRedis)('createRedisSessionStateStore', () => {
  beforeAll(async () => {
    server = await startTestRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((each) => each.close()));
    await server?.stop();
  });

  it('saves with compare-and-set on the version; another process loads what was saved', async () => {
    const first = store({ prefix: 'cas:' });
    expect(await first.load('s1')).toBeUndefined();
    expect(await first.save('s1', state(1), { expectedVersion: 0 })).toEqual({ version: 1 });
    expect(await first.save('s1', state(2), { expectedVersion: 1 })).toEqual({ version: 2 });
    const second = store({ prefix: 'cas:' });
    expect(await second.load('s1')).toEqual({ version: 2, state: state(2) });
    const stale = await second.save('s1', state(9), { expectedVersion: 1 }).catch((error: unknown) => error);
    expect(codeOf(stale)).toBe('STATE_CONFLICT');
    expect((stale as Error).message).toMatch(/state version is 2, expected 1/);
    expect(await second.load('s1')).toEqual({ version: 2, state: state(2) });
    expect(await second.load('s2')).toBeUndefined();
  });

  it('lets exactly one of many concurrent saves of the same version win', async () => {
    const writers = Array.from({ length: 4 }, () => store({ prefix: 'race:' }));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        writers[index % writers.length]!.save('s1', state(index), { expectedVersion: 0 }),
      ),
    );
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected') expect(codeOf(outcome.reason)).toBe('STATE_CONFLICT');
    expect((await writers[0]!.load('s1'))?.version).toBe(1);
  });

  it('no lost update: read-modify-write under the session lock from two stores', async () => {
    const stores2 = [store({ prefix: 'lock:' }), store({ prefix: 'lock:' })];
    const increments = 40;
    await Promise.all(
      Array.from({ length: increments }, (_, index) => {
        const each = stores2[index % 2]!;
        return each.withSessionLock('counter', async () => {
          const loaded = await each.load('counter');
          await sleep(1); // widen the window a lost update would need
          await each.save('counter', state((loaded?.state.ids.next ?? 0) + 1), {
            expectedVersion: loaded?.version ?? 0,
          });
        });
      }),
    );
    expect(await stores2[0]!.load('counter')).toEqual({ version: increments, state: state(increments) });
  });

  it("a crashed holder's lease expires; a live holder renews its lease", async () => {
    const prefix = 'lease:';
    const client = createClient({ url: server.url });
    // The server stops after the suite; a socket error then is not this test's.
    client.on('error', () => {});
    await client.connect();
    try {
      // A holder that died without releasing: its lock only has its lease left. Timed from before
      // the lock was set, the waiter gets it no sooner than that lease ends (a loaded machine only
      // makes the wait longer).
      const started = Date.now();
      await client.set(`${prefix}{s1}:lock`, 'dead-holder', { PX: 300 });
      const waiter = store({ prefix, leaseMs: 200 });
      await waiter.withSessionLock('s1', async () => {
        expect(await client.get(`${prefix}{s1}:lock`)).not.toBe('dead-holder');
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(299);
      // A task longer than the lease keeps the lock (renewed), so a second holder waits for it.
      const order: string[] = [];
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const long = waiter.withSessionLock('s1', async () => {
        order.push('long start');
        holding();
        await sleep(700);
        order.push('long end');
      });
      await held;
      await store({ prefix, leaseMs: 200 }).withSessionLock('s1', async () => {
        order.push('second');
      });
      await long;
      expect(order).toEqual(['long start', 'long end', 'second']);
      expect(await client.exists(`${prefix}{s1}:lock`)).toBe(0);
    } finally {
      client.destroy();
    }
  });

  it('gives up waiting with STATE_CONFLICT after waitMs, or ABORTED on a signal', async () => {
    const holder = store({ prefix: 'wait:' });
    const other = store({ prefix: 'wait:' });
    let release!: () => void;
    const held = holder.withSessionLock('s1', () => new Promise<void>((resolve) => (release = resolve)));
    await sleep(20);
    const waited = await other
      .withSessionLock('s1', async () => {}, { waitMs: 100 })
      .catch((error: unknown) => error);
    expect(codeOf(waited)).toBe('STATE_CONFLICT');
    const aborted = await other
      .withSessionLock('s1', async () => {}, { signal: AbortSignal.timeout(50) })
      .catch((error: unknown) => error);
    expect(codeOf(aborted)).toBe('ABORTED');
    release();
    await held;
    // The lock is free again; a failing task releases it too.
    await expect(other.withSessionLock('s1', async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await other.withSessionLock('s1', async () => 'ok', { waitMs: 100 })).toBe('ok');
  });

  it('sets the TTL on save when ttlSeconds is given', async () => {
    const each = store({ prefix: 'sttl:', ttlSeconds: 60 });
    await each.save('s1', state(1), { expectedVersion: 0 });
    const client = createClient({ url: server.url });
    await client.connect();
    expect(await client.ttl('sttl:{s1}:state')).toBeGreaterThan(50);
    client.destroy();
  });

  it('keeps the archive of a saved state alive as long as the state, never shortening it', async () => {
    const prefix = 'live:';
    const archive = createRedisArchiveStore({ url: server.url, prefix, ttlSeconds: 60 });
    const each = store({ prefix, ttlSeconds: 60 });
    await archive.put([result('r1', 's1'), result('r1', 'kept')]);
    const client = createClient({ url: server.url });
    await client.connect();
    // The session went on without archiving: its archive is 2 s from expiring, its state is saved.
    for (const part of ['items', 'index']) await client.pExpire(`${prefix}{s1}:${part}`, 2_000);
    await each.save('s1', state(1), { expectedVersion: 0 });
    for (const part of ['items', 'index'])
      expect(await client.ttl(`${prefix}{s1}:${part}`)).toBeGreaterThan(50);
    // An archive kept without expiry stays so.
    for (const part of ['items', 'index']) await client.persist(`${prefix}{kept}:${part}`);
    await each.save('kept', state(1), { expectedVersion: 0 });
    for (const part of ['items', 'index']) expect(await client.ttl(`${prefix}{kept}:${part}`)).toBe(-1);
    client.destroy();
    await archive.close();
  });
});
