import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileArchiveStore } from '../archive/index.js';
import { recordingIO } from '../cli/cli-io.test-utils.js';
import { main } from '../cli/main.js';
import { assertSafeBinding, isLoopbackHost } from './access.js';
import { anthropicLoop, toolCallingScript } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { startProxy } from './proxy-server.js';

const startProxyOver = useProxyHarness();
let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

describe('safe defaults', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.4', false],
  ])('isLoopbackHost(%s) is %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });

  it('startProxy refuses a non-loopback host without a token', async () => {
    await expect(startProxy({ upstream: 'http://127.0.0.1:1', host: '0.0.0.0' })).rejects.toThrow(
      /refusing to listen on 0\.0\.0\.0 without a token/,
    );
    expect(() => assertSafeBinding('0.0.0.0', 'secret')).not.toThrow();
  });

  it('`proxy --host 0.0.0.0` without a token exits 2 with one line', async () => {
    directory = await mkdtemp(join(tmpdir(), 'access-'));
    const { output, io } = recordingIO(directory);
    const code = await main(['proxy', '--upstream', 'http://127.0.0.1:1', '--host', '0.0.0.0'], io);
    expect(code).toBe(2);
    expect(output.stdout).toBe('');
    expect(output.stderr.trim().split('\n')).toHaveLength(1);
    expect(output.stderr).toMatch(/--host|without a token/);
  });

  it('with a token every /agent-compact/* route answers 401 without it, and serves it as bearer or ?token=', async () => {
    const { proxy } = await startProxyOver(['Hi.'], { token: 'tok-123' });
    for (const path of [
      '/agent-compact/stats',
      '/agent-compact/',
      '/agent-compact/anything',
      '/agent-compact',
    ]) {
      expect((await fetch(`${proxy.url}${path}`)).status, path).toBe(401);
      expect((await fetch(`${proxy.url}${path}?token=wrong`)).status, path).toBe(401);
      const bearer = await fetch(`${proxy.url}${path}`, { headers: { authorization: 'Bearer wrong' } });
      expect(bearer.status, path).toBe(401);
    }
    const byHeader = await fetch(`${proxy.url}/agent-compact/stats`, {
      headers: { authorization: 'Bearer tok-123' },
    });
    expect(byHeader.status).toBe(200);
    expect((await fetch(`${proxy.url}/agent-compact/stats?token=tok-123`)).status).toBe(200);
  });

  it('a session id "../../etc" from the header stays inside the archive directory', async () => {
    directory = await mkdtemp(join(tmpdir(), 'access-'));
    const archiveDir = join(directory, 'archive', 'inner');
    const { proxy, records } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 3000, hard: 6000 },
      summarizer: 'extractive',
      archive: createFileArchiveStore({ directory: archiveDir }),
    });
    await anthropicLoop(proxy.url, { turns: 10, headers: { 'x-agent-compact-session': '../../etc' } });
    expect(records.some((record) => record.layer !== 'none')).toBe(true);
    const inside = await readdir(archiveDir, { recursive: true });
    expect(inside.length).toBeGreaterThan(0);
    // Nothing was written beside or above the archive directory.
    expect((await readdir(join(directory, 'archive'))).sort()).toEqual(['inner']);
    expect(await readdir(directory)).toEqual(['archive']);
    for (const name of inside) expect(resolve(archiveDir, name).startsWith(archiveDir)).toBe(true);
  });
});
