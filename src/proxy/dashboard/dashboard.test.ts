import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { findBrowser, required, skipWithout } from '../../testing/browsers.test-utils.js';
import { anthropicLoop, toolCallingScript } from '../agent-loops.test-utils.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';
import type { ProxyStats } from '../proxy-stats.js';
import { getJson, TOKEN, proxyWithTraffic as withTraffic } from './dashboard.test-utils.js';
import type { MonitoredSession } from './monitor.js';

const run = promisify(execFile);
const startProxyOver = useProxyHarness();
const proxyWithTraffic = () => withTraffic(startProxyOver);
const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

describe('the dashboard over HTTP', () => {
  it('serves sessions with requests and compactions, each archived item in full, and an export', async () => {
    const { proxy, records } = await proxyWithTraffic();
    const sessions = await getJson<MonitoredSession[]>(proxy.url, '/agent-compact/sessions');
    expect(sessions.map((session) => session.api).sort()).toEqual(['anthropic', 'openai']);
    const anthropic = await getJson<MonitoredSession>(
      proxy.url,
      `/agent-compact/sessions/${sessions.find((s) => s.api === 'anthropic')!.id}`,
    );
    expect(anthropic.model).toBe('claude-test');
    expect(anthropic.agent).toMatch(/Anthropic/i);
    expect(anthropic.requests.map((r) => r.tokensIn)).toEqual(
      records.filter((r) => r.api === 'anthropic').map((r) => r.tokensIn),
    );
    const hard = anthropic.compactions.find((c) => c.layer === 'hard');
    expect(hard?.summary).toBeTruthy();
    expect(hard!.tokensAfter).toBeLessThan(hard!.tokensBefore);
    const itemId = anthropic.compactions.flatMap((c) => c.archived)[0]!;
    const item = await getJson<{ id: string; sessionId: string }>(
      proxy.url,
      `/agent-compact/sessions/${anthropic.id}/items/${itemId}`,
    );
    expect(item.id).toBe(itemId);
    const exported = await fetch(`${proxy.url}/agent-compact/sessions/${anthropic.id}/export?token=${TOKEN}`);
    expect(exported.headers.get('content-disposition')).toContain(`agent-compact-${anthropic.id}.json`);
    expect(await exported.json()).toEqual(anthropic);
    // Another session's id never reaches this session's archive.
    expect((await fetch(`${proxy.url}/agent-compact/sessions/nope/items/${itemId}`, auth)).status).toBe(404);
  });

  it('sends a session event on /agent-compact/events when a request finishes', async () => {
    const { proxy } = await startProxyOver(['Hello.'], {});
    const controller = new AbortController();
    const events = await fetch(`${proxy.url}/agent-compact/events`, { signal: controller.signal });
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    const reader = events.body!.getReader();
    await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'claude-live',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    }).then((answer) => answer.text());
    let text = '';
    while (!text.includes('event: session')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(text).toContain('"model":"claude-live"');
    expect(text).toMatch(/"request":\{"time":/);
  });
});

const chromium = await findBrowser('chromium');
const skipBrowser = skipWithout('chromium', chromium, 'dashboard browser test');

describe.skipIf(skipBrowser)('the dashboard in headless Chromium', () => {
  const flags = (profile: string) => [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profile}`,
    '--window-size=1280,1400',
  ];

  it('shows the figures of /agent-compact/stats and every compaction, and renders a screenshot', async () => {
    const { proxy } = await proxyWithTraffic();
    directory = await mkdtemp(join(tmpdir(), 'dashboard-'));
    const stats = await getJson<ProxyStats>(proxy.url, '/agent-compact/stats');
    const sessions = await Promise.all(
      (await getJson<MonitoredSession[]>(proxy.url, '/agent-compact/sessions')).map((s) =>
        getJson<MonitoredSession>(proxy.url, `/agent-compact/sessions/${s.id}`),
      ),
    );
    const page = `${proxy.url}/agent-compact/?token=${TOKEN}`;
    const { stdout: dom } = await run(
      required('chromium', chromium),
      [...flags(join(directory, 'dom')), '--dump-dom', page],
      {
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const figure = (name: string) =>
      Number(new RegExp(`data-figure="${name}" data-value="(\\d+)"`).exec(dom)?.[1]);
    expect(figure('requests')).toBe(stats.requests);
    expect(figure('tokensIn')).toBe(stats.tokensIn);
    expect(figure('tokensOut')).toBe(stats.tokensOut);
    expect(figure('compactions')).toBe(stats.byLayer.micro + stats.byLayer.mid + stats.byLayer.hard);
    expect(figure('sessions')).toBe(2);
    const compactions = sessions.reduce((sum, s) => sum + s.compactions.length, 0);
    expect(compactions).toBeGreaterThan(0);
    expect(dom.match(/<tr class="compaction"/g)).toHaveLength(compactions);
    expect(dom.match(/<polyline/g)).toHaveLength(2 * sessions.length);
    expect(dom).toContain('export JSON');
    // Opened with ?token=, the page moved the token into its cookie: no link of it carries it.
    expect(dom).not.toContain(TOKEN);
    const screenshot = join(directory, 'dashboard.png');
    await run(
      required('chromium', chromium),
      [...flags(join(directory, 'shot')), `--screenshot=${screenshot}`, page],
      {
        timeout: 60_000,
      },
    );
    const png = await readFile(screenshot);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // A blank page compresses to a few kilobytes; figures, a chart and tables make it far larger.
    expect(png.length).toBeGreaterThan(20_000);
    if (process.env.AGENT_COMPACT_SCREENSHOT)
      await run('cp', [screenshot, process.env.AGENT_COMPACT_SCREENSHOT]);
  });

  it('names the compactions that fell back and why', async () => {
    const { proxy } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 300, hard: 600 },
      summarizer: 'extractive',
      token: TOKEN,
    });
    const output = `${'const value = compute(input); // line\n'.repeat(120)}`;
    const messages = [
      { role: 'user', content: 'Read every file.' },
      // No system-messages beta: a compaction keeping this message is rejected.
      { role: 'system', content: 'Available agent types: Explore.' },
      ...[1, 2, 3].flatMap((turn) => [
        { role: 'assistant', content: [{ type: 'tool_use', id: `t${turn}`, name: 'read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${turn}`, content: output }] },
      ]),
    ];
    await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 50, messages }),
    }).then((answer) => answer.text());
    const stats = await getJson<ProxyStats>(proxy.url, '/agent-compact/stats');
    expect(stats.fallbacks).toBe(1);
    directory = await mkdtemp(join(tmpdir(), 'dashboard-'));
    const { stdout: dom } = await run(
      required('chromium', chromium),
      [...flags(join(directory, 'dom')), '--dump-dom', `${proxy.url}/agent-compact/?token=${TOKEN}`],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    expect(dom).toContain('data-figure="fallbacks" data-value="1"');
    expect(dom).toMatch(/data-fallback="rejected">1 rejected: messages\[\d+\]\.role: role must be/);
    // The session's timeline shows the request that fell back, with the layer it tried.
    expect(dom).toMatch(
      /<tr class="fell-back">.*compacted request rejected \((micro|mid|hard)\): messages\[\d+\]\.role: /,
    );
  });
});

describe('dashboard ids', () => {
  it('a malformed % escape in a session or item id is a 400, not a 502', async () => {
    const { proxy } = await startProxyOver(['Hello.'], {});
    for (const path of ['/agent-compact/sessions/%E0%A4%A', '/agent-compact/sessions/x/items/%zz']) {
      expect((await fetch(`${proxy.url}${path}`)).status, path).toBe(400);
    }
  });

  it('after the session restarts, an archive id used again shows the new history’s item', async () => {
    const { proxy } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 1500, hard: 2500 },
      summarizer: 'extractive',
    });
    const headers = { 'x-agent-compact-session': 'restarting' };
    const first = await anthropicLoop(proxy.url, { turns: 8, headers, task: 'first history' });
    // A history that does not extend the first: the proxy starts the session again.
    const second = await anthropicLoop(proxy.url, { turns: 8, headers, task: 'second history' });
    const toolIds = (messages: typeof first) =>
      messages.flatMap((message) =>
        Array.isArray(message.content)
          ? message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []))
          : [],
      );
    const [session] = await getJson<MonitoredSession[]>(proxy.url, '/agent-compact/sessions');
    const full = await getJson<MonitoredSession>(proxy.url, `/agent-compact/sessions/${session!.id}`);
    const reused = full.compactions.at(-1)!.archived[0]!;
    expect(full.compactions.slice(0, -1).some((c) => c.archived.includes(reused))).toBe(true);
    const item = JSON.stringify(
      await getJson<unknown>(proxy.url, `/agent-compact/sessions/${session!.id}/items/${reused}`),
    );
    expect(toolIds(second).some((id) => item.includes(id))).toBe(true);
    expect(toolIds(first).some((id) => item.includes(id))).toBe(false);
  });
});
