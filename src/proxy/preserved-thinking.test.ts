import { describe, expect, it } from 'vitest';
import { anthropicLoop, toolCallingScript } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { startProxy } from './proxy-server.js';

const startProxyOver = useProxyHarness();

/** The thinking signatures a request body sends back. */
function signatures(body: Record<string, unknown>): string[] {
  return [...JSON.stringify(body.messages).matchAll(/"signature":"(scripted-signature-[^"]+)"/g)].map(
    (match) => match[1]!,
  );
}

describe('Claude Code on its default model (preserved thinking) through the proxy', () => {
  it('every compacted request is one the API takes: no thinking block after what the compaction changed', async () => {
    // The scripted server checks each thinking block against the messages it was written after,
    // and answers a changed prefix with the API's 400, as an account created since 31 August 2026.
    const { server, proxy, records } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 3000, hard: 6000 },
      log: () => {},
    });
    const history = await anthropicLoop(proxy.url, {
      turns: 20,
      stream: true,
      thinking: true,
      model: 'claude-opus-5-5',
    });
    expect(history.length).toBeGreaterThan(26);
    const layers = new Set(records.map((record) => record.layer));
    expect(layers.has('micro') || layers.has('mid')).toBe(true);
    expect(layers.has('hard')).toBe(true);
    expect(server.requests.filter((request) => request.outcome === 'invalid-request')).toEqual([]);
    expect(records.filter((record) => record.fallback !== undefined)).toEqual([]);
    // Only what a change made invalid is left out: the thinking before the first micro batch still
    // goes with it, and the answer to it brings one more block that the next request sends back.
    const micro = records.findIndex((record) => record.layer === 'micro' || record.layer === 'mid');
    const atMicro = signatures(server.requests[micro]!.body);
    expect(atMicro.length).toBeGreaterThan(0);
    expect(signatures(server.requests[micro + 1]!.body)).toEqual([
      ...atMicro,
      expect.stringMatching(/^scripted-signature-/),
    ]);
  });

  it('a conversation picked up by a proxy that lost its state goes on: the client’s thinking, written after the compacted history, is left out', async () => {
    const options = { stream: true, thinking: true, model: 'claude-opus-5-5' };
    const {
      server,
      proxy: first,
      records,
    } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 3000, hard: 6000 },
      log: () => {},
    });
    const history = await anthropicLoop(first.url, { ...options, turns: 12 });
    expect(records.some((record) => record.layer !== 'none')).toBe(true);
    // A new proxy (a restart, or `wrap -- claude --continue` the next day) sees the client's copy.
    const second = await startProxy({
      upstream: server.url,
      thresholds: { mid: 3000, hard: 6000 },
      log: () => {},
    });
    const resumed = await anthropicLoop(second.url, { ...options, turns: 2, resume: history }).finally(() =>
      second.close(),
    );
    expect(resumed.length).toBe(history.length + 4);
    expect(server.requests.filter((request) => request.outcome === 'invalid-request')).toEqual([]);
    const picked = server.requests.at(-2)!.body;
    expect(signatures(picked)).toEqual([]);
    // From there the thinking written again goes back as it came.
    expect(signatures(server.requests.at(-1)!.body)).toHaveLength(1);
  });
});
