import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findBrowser, required, skipWithout } from '../../testing/browsers.test-utils.js';
import { anthropicLoop, openAIChatLoop, toolCallingScript } from '../agent-loops.test-utils.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';
import type { ProxyStats } from '../proxy-stats.js';
import { getJson, monitoredSessions, proxyWithTraffic, TOKEN } from './dashboard.test-utils.js';
import { HeadlessFirefox } from './firefox-bidi.test-utils.js';

const startProxyOver = useProxyHarness();
const firefoxBinary = await findBrowser('firefox');
const skipFirefox = skipWithout('firefox', firefoxBinary, 'dashboard Firefox test');

let firefox: HeadlessFirefox | undefined;
let profile: string | undefined;
afterEach(async () => {
  await firefox?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  firefox = undefined;
  profile = undefined;
});

/** The page's figures once it has drawn every compaction the proxy recorded. */
const renderedFigures = (compactions: number) => `new Promise((resolve) => {
  const read = () => {
    const rows = document.querySelectorAll('tr.compaction').length;
    if (rows < ${compactions}) return setTimeout(read, 50);
    const figures = {};
    for (const node of document.querySelectorAll('[data-figure]'))
      figures[node.dataset.figure] = Number(node.dataset.value);
    resolve({ figures, rows, polylines: document.querySelectorAll('polyline').length,
      text: document.body.innerText });
  };
  read();
})`;

interface Rendered {
  figures: Record<string, number>;
  rows: number;
  polylines: number;
  text: string;
}

describe.skipIf(skipFirefox)('the dashboard in headless Firefox', () => {
  it('shows the figures of /agent-compact/stats and every compaction, and renders a screenshot', async () => {
    const { proxy } = await proxyWithTraffic(startProxyOver);
    const stats = await getJson<ProxyStats>(proxy.url, '/agent-compact/stats');
    const sessions = await monitoredSessions(proxy.url);
    const compactions = sessions.reduce((sum, s) => sum + s.compactions.length, 0);
    expect(compactions).toBeGreaterThan(0);
    profile = await mkdtemp(join(tmpdir(), 'dashboard-firefox-'));
    firefox = await HeadlessFirefox.launch(required('firefox', firefoxBinary), profile);
    await firefox.navigate(`${proxy.url}/agent-compact/?token=${TOKEN}`);
    const page = await firefox.evaluate<Rendered>(renderedFigures(compactions));
    expect(page.figures.requests).toBe(stats.requests);
    expect(page.figures.tokensIn).toBe(stats.tokensIn);
    expect(page.figures.tokensOut).toBe(stats.tokensOut);
    expect(page.figures.compactions).toBe(stats.byLayer.micro + stats.byLayer.mid + stats.byLayer.hard);
    expect(page.figures.sessions).toBe(2);
    expect(page.rows).toBe(compactions);
    expect(page.polylines).toBe(2 * sessions.length);
    expect(page.text).toContain('export JSON');
    const png = await firefox.screenshot();
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // A blank page compresses to a few kilobytes; figures, a chart and tables make it far larger.
    expect(png.length).toBeGreaterThan(20_000);
  });

  it('draws the traffic that arrives while it is open from the events, one update at a time', async () => {
    const { proxy, records } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 1500, hard: 2500 },
      summarizer: 'extractive',
      token: TOKEN,
    });
    profile = await mkdtemp(join(tmpdir(), 'dashboard-firefox-'));
    firefox = await HeadlessFirefox.launch(required('firefox', firefoxBinary), profile);
    await firefox.navigate(`${proxy.url}/agent-compact/?token=${TOKEN}`);
    // The event stream is open before any traffic: everything below reaches the page as events.
    await vi.waitFor(async () =>
      expect(await firefox!.evaluate<string | null>('document.documentElement.dataset.live ?? null')).toBe(
        'true',
      ),
    );
    await anthropicLoop(proxy.url, { turns: 12, task: 'anthropic session' });
    await openAIChatLoop(`${proxy.url}/v1`, { turns: 8, task: 'openai session' });
    let sessions = await monitoredSessions(proxy.url);
    await vi.waitFor(async () => {
      sessions = await monitoredSessions(proxy.url);
      expect(sessions.reduce((sum, s) => sum + s.requests.length, 0)).toBe(records.length);
    });
    const compactions = sessions.reduce((sum, s) => sum + s.compactions.length, 0);
    expect(compactions).toBeGreaterThan(0);
    const page = await firefox.evaluate<Rendered>(renderedFigures(compactions));
    const stats = await getJson<ProxyStats>(proxy.url, '/agent-compact/stats');
    expect(page.rows).toBe(compactions);
    expect(page.figures.sessions).toBe(2);
    expect(page.polylines).toBe(2 * sessions.length);
    // The last request's event may still be on its way when the compactions are drawn (its totals
    // come with it): wait for it.
    await vi.waitFor(async () => {
      const drawn = await firefox!.evaluate<Rendered>(renderedFigures(compactions));
      for (const session of sessions) expect(drawn.text).toContain(`${session.requests.length} requests`);
      expect(drawn.figures.compactions).toBe(stats.byLayer.micro + stats.byLayer.mid + stats.byLayer.hard);
    });
  });
});
