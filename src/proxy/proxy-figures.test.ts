import { describe, expect, it } from 'vitest';
import { anthropicLoop, isSummaryRequest, toolCallingScript } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { createRequestTokens } from './request-tokens.js';

const startProxyOver = useProxyHarness();

describe('the proxy figures', () => {
  it('counts as sent what the client sent, every turn its whole history, and as forwarded what went upstream', async () => {
    const { server, proxy, records } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 3000, hard: 6000 },
      summarizer: 'same',
    });
    const sent: Record<string, unknown>[] = [];
    await anthropicLoop(proxy.url, { turns: 24, onRequest: (body) => sent.push(body) });
    // The same counter the proxy uses by default, on the bodies as the client wrote them.
    const count = createRequestTokens();
    const tokensOf = (body: Record<string, unknown>) => count('anthropic', body) ?? Number.NaN;
    const forwarded = server.requests.filter((request) => !isSummaryRequest(request));
    const stats = await proxy.stats();
    expect(stats.byLayer.hard + stats.byLayer.mid).toBeGreaterThan(0);
    expect(records.map((record) => record.tokensIn)).toEqual(sent.map(tokensOf));
    expect(records.map((record) => record.tokensOut)).toEqual(
      forwarded.map((request) => tokensOf(request.body)),
    );
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    expect(stats.tokensIn).toBe(sum(sent.map(tokensOf)));
    expect(stats.tokensOut).toBe(sum(forwarded.map((request) => tokensOf(request.body))));
    // The client's history only grows: what it sent is never smaller on the next turn, compacted or not.
    const ins = records.map((record) => record.tokensIn);
    expect(ins.every((tokens, index) => index === 0 || tokens > ins[index - 1]!)).toBe(true);
    expect(stats.tokensOut).toBeLessThan(stats.tokensIn);
  });

  it('bills the client prefix it resent as cache reads, and a compacted request as written whole', async () => {
    const { proxy, records } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 3000, hard: 6000 },
      summarizer: 'same',
    });
    await anthropicLoop(proxy.url, { turns: 16 });
    const { cache, tokensIn, tokensOut } = await proxy.stats();
    expect(cache.sent.read + cache.sent.write).toBe(tokensIn);
    expect(cache.forwarded.read + cache.forwarded.write).toBe(tokensOut);
    // Each request after the first reads the one before it.
    const ins = records.map((record) => record.tokensIn);
    expect(cache.sent.read).toBe(ins.slice(0, -1).reduce((total, value) => total + value, 0));
    const compacted = records.filter((record) => record.layer !== 'none');
    expect(compacted.length).toBeGreaterThan(0);
    expect(cache.forwarded.write).toBeGreaterThanOrEqual(
      compacted.reduce((total, record) => total + record.tokensOut, 0),
    );
  });
});
