import { existsSync } from 'node:fs';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { skipRedis, startTestRedis } from '../redis/redis-server.test-utils.js';

describe.skipIf(skipRedis)('startRedisServer', () => {
  it('runs a private server on 127.0.0.1 whose data survives a restart in the same folder', async () => {
    const first = await startTestRedis();
    expect(first.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    const client = createClient({ url: first.url });
    await client.connect();
    await client.set('k', 'v');
    client.destroy();
    await first.stop({ keepData: true });
    const second = await startTestRedis({ port: first.port, directory: first.directory });
    const again = createClient({ url: second.url });
    await again.connect();
    expect(await again.get('k')).toBe('v');
    again.destroy();
    await second.stop();
    await first.stop();
    expect(existsSync(first.directory)).toBe(false);
  });

  it('two servers get two ports; a password is required when set', async () => {
    const [open, guarded] = await Promise.all([startTestRedis(), startTestRedis({ password: 's3cret' })]);
    expect(open.port).not.toBe(guarded.port);
    expect(guarded.url).toContain(':s3cret@');
    const anonymous = createClient({ url: `redis://127.0.0.1:${guarded.port}` });
    await expect(anonymous.connect()).rejects.toThrow(/NOAUTH/);
    anonymous.destroy();
    await Promise.all([open.stop(), guarded.stop()]);
  });
});
