// The dashboard drawn by headless Chromium (`npm run test:browsers`); Firefox is in
// dashboard-firefox.browser.test.ts, the HTTP side in dashboard.test.ts.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
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
});
