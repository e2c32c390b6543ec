import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request } from 'node:http';
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
    // The scheme's case is the client's to choose (RFC 9110 §11.1), its spacing too.
    for (const authorization of ['bearer tok-123', 'BEARER  tok-123']) {
      const answer = await fetch(`${proxy.url}/agent-compact/stats`, { headers: { authorization } });
      expect(answer.status, authorization).toBe(200);
    }
    expect((await fetch(`${proxy.url}/agent-compact/stats?token=tok-123`)).status).toBe(200);
  });

  it.each(['tok-123', 'my pass; phrase=1', 'tøken€'])(
    'the dashboard trades the token %j for a cookie that opens its routes',
    async (token) => {
      const { proxy } = await startProxyOver(['Hi.'], { token });
      const first = await fetch(`${proxy.url}/agent-compact/?token=${encodeURIComponent(token)}`, {
        redirect: 'manual',
      });
      expect(first.status).toBe(303);
      // What a browser sends back: the cookie's name and value, up to the first `;`.
      const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
      const sessions = await fetch(`${proxy.url}/agent-compact/sessions`, { headers: { cookie } });
      expect(sessions.status).toBe(200);
    },
  );

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

/** One request with exactly these headers (fetch would not send a `Host` of the test's choosing). */
function send(
  url: string,
  { method = 'GET', path, headers }: { method?: string; path: string; headers: Record<string, string> },
): Promise<{ status: number; body: string }> {
  const body = method === 'POST' ? JSON.stringify(chatBody) : undefined;
  return new Promise((resolve, reject) => {
    const outgoing = request(`${url}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    });
    outgoing.on('response', (answer) => {
      let text = '';
      answer.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body: text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const chatBody = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] };

describe('Host, Origin and Sec-Fetch-Site', () => {
  const routes = [
    { method: 'POST', path: '/v1/chat/completions' },
    { method: 'GET', path: '/agent-compact/stats' },
    { method: 'GET', path: '/v1/models' },
  ];

  it.each([
    ['a rebound Host', { host: 'evil.example:8787' }, /Host "evil\.example:8787" is not served/],
    ['a foreign Origin', { origin: 'https://evil.example' }, /Origin "https:\/\/evil\.example"/],
    ['an Origin on another port of this machine', { origin: 'http://127.0.0.1:1' }, /Origin/],
    ['Origin: null', { origin: 'null' }, /Origin "null"/],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }, /cross-site/],
  ])('%s gets 403 on every route, and nothing goes upstream', async (_name, headers, message) => {
    const { proxy, server } = await startProxyOver(['Hi.']);
    for (const route of routes) {
      const answer = await send(proxy.url, { ...route, headers });
      expect(answer.status, route.path).toBe(403);
      const { error } = JSON.parse(answer.body) as { error: string | { message: string } };
      expect(typeof error === 'string' ? error : error.message, route.path).toMatch(message);
    }
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['no Origin, as agents on the command line send', {}],
    ['Host localhost', { host: 'localhost:8787' }],
    ['Host [::1]', { host: '[::1]:8787' }],
    ['the page of the proxy itself', { origin: 'SELF', 'sec-fetch-site': 'same-origin' }],
    ['a name given with allowHosts', { host: 'my.box:8787' }],
    [
      'a page of a name given with allowHosts',
      { origin: 'http://my.box:3000', 'sec-fetch-site': 'cross-site' },
    ],
  ])('%s is served', async (_name, given: Record<string, string>) => {
    const { proxy } = await startProxyOver(['Hi.'], { allowHosts: ['My.Box'] });
    const headers = { ...given, ...(given.origin === 'SELF' ? { origin: proxy.url } : {}) };
    for (const route of routes) {
      const answer = await send(proxy.url, { ...route, headers });
      expect(answer.status, route.path).not.toBe(403);
    }
  });
});
