import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisArchiveStore, createRedisSessionStateStore } from '../../redis/index.js';
import { skipRedis, startTestRedis } from '../../redis/redis-server.test-utils.js';
import { startScriptedModelServer } from '../../testing/index.js';
import type { RedisServer } from '../../testing/redis-server.js';
import { main } from '../main.js';
import type { AgentCliIO } from './run.js';

const password = 'store-pa55word';
let server: RedisServer;
let workspace: string;

beforeAll(async () => {
  if (skipRedis) return;
  server = await startTestRedis({ password });
  workspace = await mkdtemp(path.join(tmpdir(), 'agent-store-'));
  for (const index of [1, 2, 3, 4])
    await writeFile(
      path.join(workspace, `f${index}.ts`),
      `// file ${index}\n${'export const x = 1;\n'.repeat(400)}`,
    );
});
afterAll(async () => {
  await server?.stop();
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

function testIO() {
  const output = { stdout: '', stderr: '' };
  const io: AgentCliIO = {
    stdout: (text) => {
      output.stdout += text;
    },
    stderr: (text) => {
      output.stderr += text;
    },
    env: { ANTHROPIC_API_KEY: 'sk-test-key-0123456789' },
    cwd: workspace,
    isTTY: false,
  };
  return { io, output };
}

describe.skipIf(skipRedis)('agent-compact run --store redis://…', () => {
  it('keeps the archive and the compactor state in Redis, and never prints the password', async () => {
    const reads = [1, 2, 3, 4].map((index) => ({
      type: 'tool-calls' as const,
      calls: [{ id: `toolu_${index}`, name: 'read_file', input: { path: `f${index}.ts` } }],
    }));
    const model = await startScriptedModelServer({ script: [...reads, 'Read them all.'] });
    try {
      const { io, output } = testIO();
      const args = [
        'run',
        'read the files',
        '--base-url',
        model.anthropicBaseURL,
        '--summarizer',
        'extractive',
      ];
      const code = await main([...args, '--mid', '3000', '--hard', '6000', '--store', server.url], io);
      expect(code, output.stderr).toBe(0);
      expect(output.stdout).toContain('Read them all.');
      expect(output.stderr).toContain(`store redis://***@127.0.0.1:${server.port}`);
      expect(output.stderr).not.toContain(password);
      const sessionId = /session (\S+)/.exec(output.stderr)![1]!;
      const archive = createRedisArchiveStore({ url: server.url });
      const stateStore = createRedisSessionStateStore({ url: server.url });
      expect((await archive.list(sessionId)).length).toBeGreaterThan(0);
      expect((await stateStore.load(sessionId))?.version).toBeGreaterThan(0);
      await Promise.all([archive.close(), stateStore.close()]);
    } finally {
      await model.close();
    }
  });

  it('refuses a --store that is not a Redis URL', async () => {
    const { io, output } = testIO();
    const code = await main(
      ['run', 'task', '--store', 'postgres://db', '--base-url', 'http://127.0.0.1:1'],
      io,
    );
    expect(code).toBe(2);
    expect(output.stderr).toMatch(/--store takes a Redis URL/);
  });
});
