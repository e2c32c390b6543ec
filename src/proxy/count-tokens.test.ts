import { describe, expect, it } from 'vitest';
import { estimateRequestTokens } from '../testing/index.js';
import { anthropicLoop, toolCallingScript } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

describe('/v1/messages/count_tokens', () => {
  it('counts what the proxy would send for the session, not the client history', async () => {
    const { server, proxy, records } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 1500, hard: 2500 },
      summarizer: 'extractive',
    });
    const session = { 'x-agent-compact-session': 'counted' };
    let last: Record<string, unknown> = {};
    await anthropicLoop(proxy.url, { turns: 10, headers: session, onRequest: (body) => (last = body) });
    expect(records.some((record) => record.layer !== 'none')).toBe(true);
    const { max_tokens: _max, ...countBody } = last;
    const response = await fetch(`${proxy.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'test-key',
        'anthropic-version': '2023-06-01',
        ...session,
      },
      body: JSON.stringify(countBody),
    });
    const counted = (await response.json()) as { input_tokens: number };
    const clientTokens = estimateRequestTokens('anthropic', countBody);
    expect(server.requests.at(-1)?.outcome).toBe('count-tokens');
    expect(counted.input_tokens).toBeLessThan(clientTokens);
  });
});
