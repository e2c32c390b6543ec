// The dashboard drawn by headless Chromium (`npm run test:browsers`); Firefox is in
// dashboard-firefox.browser.test.ts, the HTTP side in dashboard.test.ts.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findBrowser, required, skipWithout } from '../../testing/browsers.test-utils.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';
import type { ProxyStats } from '../proxy-stats.js';
import { getJson, TOKEN, proxyWithTraffic as withTraffic } from './dashboard.test-utils.js';
import type { MonitoredSession } from './monitor.js';

const run = promisify(execFile);
const startProxyOver = useProxyHarness();
const proxyWithTraffic = () => withTraffic(startProxyOver);
let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

import type { ValidationProblem } from '../../core/model/problems.js';

// Lets one test make the proxy's check of the compacted request fail, to draw a fallback.
const forced = vi.hoisted(() => ({ problem: undefined as ValidationProblem | undefined }));
vi.mock('../../core/conversation/validate.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../core/conversation/validate.js')>();
  return {
    ...actual,
    validateMessages: (messages: unknown, options?: Parameters<typeof actual.validateMessages>[1]) =>
      forced.problem && options?.relativeTo !== undefined
        ? [forced.problem]
        : actual.validateMessages(messages, options),
  };
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
      { role: 'system', content: 'Available agent types: Explore.' },
      ...[1, 2, 3].flatMap((turn) => [
        { role: 'assistant', content: [{ type: 'tool_use', id: `t${turn}`, name: 'read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${turn}`, content: output }] },
      ]),
    ];
    forced.problem = { path: 'messages[1].role', message: 'forced', rule: 'unanswered-tool-use' };
    try {
      await fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'k',
          'anthropic-version': '2023-06-01',
          'anthropic-beta': 'per-turn-control-2026-07-01',
        },
        body: JSON.stringify({ model: 'claude-test', max_tokens: 50, messages }),
      }).then((answer) => answer.text());
    } finally {
      forced.problem = undefined;
    }
    const stats = await getJson<ProxyStats>(proxy.url, '/agent-compact/stats');
    expect(stats.fallbacks).toBe(1);
    directory = await mkdtemp(join(tmpdir(), 'dashboard-'));
    const { stdout: dom } = await run(
      required('chromium', chromium),
      [...flags(join(directory, 'dom')), '--dump-dom', `${proxy.url}/agent-compact/?token=${TOKEN}`],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    expect(dom).toContain('data-figure="fallbacks" data-value="1"');
    expect(dom).toMatch(/data-fallback="rejected">1 rejected: messages\[1\]\.role: forced/);
    // The session's timeline shows the request that fell back, with the layer it tried.
    expect(dom).toMatch(
      /<tr class="fell-back">.*compacted request rejected \((micro|mid|hard)\): messages\[1\]\.role: forced/,
    );
  });

  it('names the requests whose answer broke off upstream or streamed an error, beside their status', async () => {
    const { proxy, records } = await startProxyOver(
      ['First answer.', { type: 'drop-connection' }, { type: 'stream-error' }],
      {
        token: TOKEN,
      },
    );
    const ask = (content: string) =>
      fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: 'claude-test',
          max_tokens: 50,
          stream: true,
          messages: [{ role: 'user', content }],
        }),
      }).then((answer) => answer.text());
    await ask('One.');
    await expect(ask('Two.')).rejects.toThrow();
    expect(await ask('Three.')).toContain('event: error');
    await vi.waitFor(() => expect(records).toHaveLength(3));
    directory = await mkdtemp(join(tmpdir(), 'dashboard-'));
    const { stdout: dom } = await run(
      required('chromium', chromium),
      [...flags(join(directory, 'dom')), '--dump-dom', `${proxy.url}/agent-compact/?token=${TOKEN}`],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    // Its status line was a 200: only the note tells it from an answer that went well.
    const rows = dom.match(/<tr class="upstream-error">.*?<\/tr>/g) ?? [];
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/<td>200<\/td>.*answer broke off upstream/);
    expect(rows[1]).toMatch(/<td>200<\/td>.*stream error: overloaded_error: Overloaded/);
  });
});
