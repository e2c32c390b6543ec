import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { skipRedis, startTestRedis } from '../../redis/redis-server.test-utils.js';
import { startScriptedModelServer } from '../../testing/index.js';
import type { RedisServer } from '../../testing/redis-server.js';
import { recordingIO } from '../cli-io.test-utils.js';
import { main } from '../main.js';

const password = 'proxy-pa55word';
let redis: RedisServer;
let directory: string;
beforeAll(async () => {
  if (skipRedis) return;
  redis = await startTestRedis({ password });
  directory = await mkdtemp(join(tmpdir(), 'proxy-store-'));
});
afterAll(async () => {
  await redis?.stop();
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe.skipIf(skipRedis)('agent-compact proxy --store redis://…', () => {
  it('keeps conversations in Redis and prints the store without its password', async () => {
    const server = await startScriptedModelServer({ script: ['Hi there.'] });
    const { output, io } = recordingIO(directory);
    const exit = main(['proxy', '--upstream', server.url, '--port', '0', '--store', redis.url], io);
    await vi.waitFor(() => expect(output.stdout).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n$/), {
      timeout: 30_000,
    });
    const client = new Anthropic({
      apiKey: 'test-key',
      baseURL: output.stdout.trim().replace('listening on ', ''),
      maxRetries: 0,
    });
    await client.messages.create({
      model: 'claude-test',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    // The request's line is written once its exchange, the save to Redis included, has finished.
    await vi.waitFor(() => expect(output.stderr).toMatch(/anthropic \S+ .* 200 /), { timeout: 30_000 });
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
    await server.close();
    expect(output.stderr).toContain(`store redis://***@127.0.0.1:${redis.port}`);
    expect(output.stderr).not.toContain(password);
    const admin = createClient({ url: redis.url });
    await admin.connect();
    expect(await admin.zCard('agent-compact:proxy-sessions')).toBe(1);
    expect((await admin.keys('agent-compact:{*}:proxy')).length).toBe(1);
    admin.destroy();
  });

  /** Runs one request through `proxy --store …` with `extra` flags and `env`; the Redis keys it wrote. */
  async function oneRequest(extra: string[], env: Record<string, string> = {}) {
    const server = await startScriptedModelServer({ script: ['Hi there.'] });
    const { output, io } = recordingIO(directory, env);
    const exit = main(['proxy', '--upstream', server.url, '--port', '0', ...extra], io);
    await vi.waitFor(() => expect(output.stdout).toMatch(/^listening on /), { timeout: 30_000 });
    const client = new Anthropic({
      apiKey: 'test-key',
      baseURL: output.stdout.trim().replace('listening on ', ''),
      maxRetries: 0,
    });
    const task = `Hello ${extra.join(' ')}`;
    await client.messages.create({
      model: 'claude-test',
      max_tokens: 50,
      messages: [{ role: 'user', content: task }],
    });
    await vi.waitFor(() => expect(output.stderr).toMatch(/anthropic \S+ .* 200 /), { timeout: 30_000 });
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
    await server.close();
    return output.stderr;
  }

  it('takes the Redis password from AGENT_COMPACT_REDIS_PASSWORD, so it is not in the command line', async () => {
    const admin = createClient({ url: redis.url });
    await admin.connect();
    await admin.flushAll();
    const bare = `redis://127.0.0.1:${redis.port}`;
    const stderr = await oneRequest(['--store', bare], { AGENT_COMPACT_REDIS_PASSWORD: password });
    expect(stderr).not.toContain('warning: Redis');
    expect(stderr).not.toContain(password);
    expect(await admin.zCard('agent-compact:proxy-sessions')).toBe(1);
    admin.destroy();
  });

  it('--store-ttl: every key of a session expires after its last write (30 days unless given)', async () => {
    const admin = createClient({ url: redis.url });
    await admin.connect();
    await admin.flushAll();
    await oneRequest(['--store', redis.url, '--store-ttl', '2h']);
    const keys = await admin.keys('agent-compact:{*}:*');
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const ttl = await admin.ttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(2 * 3600);
    }
    await admin.flushAll();
    await oneRequest(['--store', redis.url]);
    for (const key of await admin.keys('agent-compact:{*}:*')) {
      expect(await admin.ttl(key), key).toBeGreaterThan(29 * 86_400);
    }
    admin.destroy();
  });

  it.each([
    [['--store', 'redis://127.0.0.1:1', '--store-ttl', 'soon'], /--store-ttl takes seconds/],
    [['--store', 'memcached://x'], /--store takes a Redis URL/],
    [['--store', 'redis://127.0.0.1:1', '--archive', 'dir'], /--store and --archive/],
  ])('refuses %j', async (extra, message) => {
    const { output, io } = recordingIO(directory);
    expect(await main(['proxy', '--upstream', 'http://127.0.0.1:1', '--port', '0', ...extra], io)).toBe(2);
    expect(output.stderr).toMatch(message);
  });
});
