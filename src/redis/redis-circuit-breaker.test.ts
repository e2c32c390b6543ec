import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../proxy/index.js';
import type { RunningProxy } from '../proxy/proxy-options.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';
import { openRedisConnection, type RedisScriptClient } from './redis-connection.js';
import { createRedisProxySessionStore } from './redis-proxy-session-store.js';

/** Far longer than any test may run: a call that waited for it would time the test out. */
const LONG_TIMEOUT_MS = 600_000;

/**
 * A Redis client that is down: the first call fails at once (connection refused), every later
 * call hangs (a Redis that does not answer) until `recover` makes calls answer again.
 */
function downClient() {
  let calls = 0;
  let release: (() => void) | undefined;
  const back = new Promise<void>((resolve) => {
    release = resolve;
  });
  const client: RedisScriptClient = {
    async evalSha() {
      calls += 1;
      if (calls === 1) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      await back;
      return null;
    },
    async eval() {
      return null;
    },
  };
  return { client, recover: () => release?.(), calls: () => calls };
}

let server: ScriptedModelServer | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  proxy = undefined;
  server = undefined;
});

describe('the Redis circuit breaker', () => {
  it('fails at once while Redis is known down, and closes once a probe answers', async () => {
    const redis = downClient();
    const connection = openRedisConnection({ client: redis.client, timeoutMs: LONG_TIMEOUT_MS });
    const script = { body: 'return 1', sha1: 'x' };
    await expect(connection.run(script, [], [], 'load')).rejects.toThrow(/ECONNREFUSED/);
    // Known down: no wait for the long timeout; this call is sent as the probe.
    await expect(connection.run(script, [], [], 'load')).rejects.toThrow(/Redis is down/);
    expect(redis.calls()).toBe(2);
    // A probe is already out: no second one.
    await expect(connection.run(script, [], [], 'load')).rejects.toThrow(/Redis is down/);
    expect(redis.calls()).toBe(2);
    redis.recover();
    await expect
      .poll(async () =>
        connection.run(script, [], [], 'load').then(
          () => 'up',
          () => 'down',
        ),
      )
      .toBe('up');
  });

  it('Redis down: the second request goes upstream without waiting for the store timeout', async () => {
    server = await startScriptedModelServer({ script: ['One.', 'Two.'] });
    const errors: string[] = [];
    const store = createRedisProxySessionStore({
      client: downClient().client,
      timeoutMs: LONG_TIMEOUT_MS,
      onError: (_error, operation) => errors.push(operation),
    });
    proxy = await startProxy({ upstream: server.url, store });
    const client = new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 });
    const ask = (text: string) =>
      client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: text }] });
    await ask('First');
    await ask('Second');
    expect(server.requests).toHaveLength(2);
    expect(errors.length).toBeGreaterThanOrEqual(2);
  });
});
