// The dashboard drawn by headless Chromium and Firefox: dashboard*.browser.test.ts (`npm run test:browsers`).
import { describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../../core/archive/memory-archive-store.js';
import { anthropicLoop, toolCallingScript } from '../agent-loops.test-utils.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';
import { getJson, TOKEN, proxyWithTraffic as withTraffic } from './dashboard.test-utils.js';
import type { MonitoredSession } from './monitor.js';

const startProxyOver = useProxyHarness();
const proxyWithTraffic = () => withTraffic(startProxyOver);
const auth = { headers: { authorization: `Bearer ${TOKEN}` } };

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

describe('an archive that fails', () => {
  it('an archived item the archive cannot read is a 503 with a JSON message, not a 502 or a stack', async () => {
    const archive = createMemoryArchiveStore();
    let failing = false;
    const get = archive.get.bind(archive);
    archive.get = (sessionId, id) =>
      failing ? Promise.reject(new Error('disk gone\n    at read')) : get(sessionId, id);
    const { proxy } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 1500, hard: 2500 },
      summarizer: 'extractive',
      archive,
    });
    await anthropicLoop(proxy.url, { turns: 12 });
    const [session] = await getJson<MonitoredSession[]>(proxy.url, '/agent-compact/sessions');
    const full = await getJson<MonitoredSession>(proxy.url, `/agent-compact/sessions/${session!.id}`);
    const itemId = full.compactions.flatMap((c) => c.archived)[0]!;
    failing = true;
    const answer = await fetch(`${proxy.url}/agent-compact/sessions/${session!.id}/items/${itemId}`);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await answer.json()).toEqual({ error: 'agent-compact: archive unavailable: disk gone' });
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
