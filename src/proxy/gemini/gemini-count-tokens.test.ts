import { describe, expect, it } from 'vitest';
import { geminiBody } from '../../core/wire/gemini/gemini-session.test-utils.js';
import { estimateRequestTokens } from '../../testing/index.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';

const start = useProxyHarness();
const headers = { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-count-key' };

describe('the proxy on Gemini :countTokens', () => {
  it.each([
    ['{ contents }', (body: Record<string, unknown>) => ({ contents: body.contents })],
    [
      '{ generateContentRequest }',
      (body: Record<string, unknown>) => ({ generateContentRequest: { model: 'models/m', ...body } }),
    ],
    // The proto's name, which the API reads as well.
    [
      '{ generate_content_request }',
      (body: Record<string, unknown>) => ({ generate_content_request: { model: 'models/m', ...body } }),
    ],
  ])('counts the compacted request the session would send, not the client history (%s)', async (_, wrap) => {
    const { server, proxy, records } = await start(['Done.'], { thresholds: { mid: 3000, hard: 200_000 } });
    const body = geminiBody(10);
    const sent = await fetch(`${proxy.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    await sent.text();
    expect(records[0]!.layer).not.toBe('none');
    const compacted = server.requests[0]!.body.contents;
    const response = await fetch(`${proxy.url}/v1beta/models/m:countTokens`, {
      method: 'POST',
      headers,
      body: JSON.stringify(wrap(body)),
    });
    const counted = (await response.json()) as { totalTokens: number };
    const upstream = server.requests.at(-1)!;
    expect(upstream.outcome).toBe('count-tokens');
    const request = (upstream.body.generateContentRequest ??
      upstream.body.generate_content_request ??
      upstream.body) as Record<string, unknown>;
    expect(request.contents).toEqual(compacted);
    expect(Object.keys(upstream.body)).toEqual(Object.keys(wrap(body)));
    expect(counted.totalTokens).toBeLessThan(estimateRequestTokens('gemini', body));
  });

  it('forwards a count for a conversation the proxy has not seen unchanged', async () => {
    const { server, proxy } = await start(['unused']);
    const body = { contents: geminiBody(2).contents };
    await fetch(`${proxy.url}/v1beta/models/m:countTokens`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    expect(server.requests[0]!.body).toEqual(body);
  });
});
