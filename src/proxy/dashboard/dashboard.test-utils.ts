/** A proxy with recorded traffic for the dashboard tests, and the JSON the page shows it from. */
import { expect, vi } from 'vitest';
import { anthropicLoop, openAIChatLoop, toolCallingScript } from '../agent-loops.test-utils.js';
import type { StartProxyHarness } from '../proxy-harness.test-utils.js';
import type { MonitoredSession } from './monitor.js';

export const TOKEN = 'dash-token';
const auth = { headers: { authorization: `Bearer ${TOKEN}` } };

/** A proxy with recorded traffic: an Anthropic and an OpenAI chat session, both compacted. */
export async function proxyWithTraffic(startProxyOver: StartProxyHarness) {
  const harness = await startProxyOver(toolCallingScript, {
    thresholds: { mid: 1500, hard: 2500 },
    summarizer: 'extractive',
    token: TOKEN,
  });
  await anthropicLoop(harness.proxy.url, { turns: 12, task: 'anthropic session' });
  await openAIChatLoop(`${harness.proxy.url}/v1`, { turns: 8, task: 'openai session' });
  const url = harness.proxy.url;
  // The dashboard records after the answer; wait until it has every request.
  await vi.waitFor(async () => {
    const sessions = await getJson<MonitoredSession[]>(url, '/agent-compact/sessions');
    const full = await Promise.all(
      sessions.map((s) => getJson<MonitoredSession>(url, `/agent-compact/sessions/${s.id}`)),
    );
    expect(full.reduce((sum, s) => sum + s.requests.length, 0)).toBe(harness.records.length);
  });
  return harness;
}

export async function getJson<T>(url: string, path: string): Promise<T> {
  const answer = await fetch(`${url}${path}`, auth);
  expect(answer.status, path).toBe(200);
  return (await answer.json()) as T;
}

/** Every session in full, as the page reads them. */
export async function monitoredSessions(url: string): Promise<MonitoredSession[]> {
  const sessions = await getJson<MonitoredSession[]>(url, '/agent-compact/sessions');
  return Promise.all(sessions.map((s) => getJson<MonitoredSession>(url, `/agent-compact/sessions/${s.id}`)));
}
