import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompactError } from '../core/model/errors.js';
import type { RedisServer } from '../testing/redis-server.js';
import { createRedisArchiveStore } from './index.js';
import { skipRedis, startTestRedis } from './redis-server.test-utils.js';

/** The built store, for a process of its own whose exit the test waits for. */
const builtStore = join(import.meta.dirname, '../../packages/redis/dist/index.js');

let server: RedisServer;

describe.skipIf(skipRedis)('a Redis store closed by its owner', () => {
  beforeAll(async () => {
    server = await startTestRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('fails a call after close() instead of opening the connection again', async () => {
    const archive = createRedisArchiveStore({ url: server.url });
    expect(await archive.sessions!()).toEqual([]);
    await archive.close();
    const error = await archive.sessions!().catch((caught: unknown) => caught);
    expect(CompactError.isInstance(error) && error.code).toBe('ARCHIVE_FAILED');
    expect((error as Error).message).toMatch(/the store was closed/);
  });

  it.skipIf(!existsSync(builtStore))(
    'lets the process exit when closed while its first call still connects',
    async () => {
      // `agent-compact mcp --store` closes its store when the client closes stdin, maybe mid-call.
      const script = `
        const { createRedisArchiveStore } = await import(${JSON.stringify(builtStore)});
        const archive = createRedisArchiveStore({ url: ${JSON.stringify(server.url)} });
        const call = archive.sessions().catch(() => 'failed');
        await archive.close();
        console.log(await call);
      `;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' });
      let stdout = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      try {
        const [code] = await once(child, 'exit');
        expect([code, stdout]).toEqual([0, 'failed\n']);
      } finally {
        child.kill('SIGKILL');
      }
    },
    15_000,
  );
});
