import { describe, expect, it } from 'vitest';
import { toolOutput } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

/** A Responses request that carries only the new items: the rest is stored with the provider. */
function statefulBody(extra: Record<string, unknown>) {
  return {
    model: 'gpt-test',
    store: true,
    ...extra,
    input: [
      // The call of this output lives in the stored response, not in this request.
      { type: 'function_call_output', call_id: 'call_stored', output: toolOutput(1, 3000) },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Go on.' }] },
    ],
  };
}

describe('stateful requests', () => {
  it.each([
    ['previous_response_id', { previous_response_id: 'resp_1' }],
    ['conversation', { conversation: 'conv_1' }],
  ])('a Responses request with %s goes upstream as it came, logged as such', async (field, extra) => {
    const lines: string[] = [];
    const { server, proxy, records } = await startProxyOver(['Done.'], {
      thresholds: { mid: 200, hard: 400 },
      summarizer: 'extractive',
      log: (line) => lines.push(line),
    });
    const body = statefulBody(extra);
    const response = await fetch(`${proxy.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await response.text();
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toEqual(body);
    expect(records[0]?.passthrough).toBe(`stateful: ${field}`);
    expect(records[0]?.layer).toBe('none');
    expect(lines[0]).toContain(`passthrough: stateful: ${field}`);
    expect(lines[0]).not.toContain('0 → 0');
  });
});

describe('a request a provider compaction covers', () => {
  it('goes upstream as it came when the compaction is in its last turns', async () => {
    const { server, proxy, records } = await startProxyOver(['Done.'], {
      thresholds: { mid: 200, hard: 400 },
      summarizer: 'extractive',
    });
    const body = {
      model: 'claude-test',
      max_tokens: 10,
      messages: [
        { role: 'user', content: `Old work: ${toolOutput(1, 2000)}` },
        { role: 'assistant', content: [{ type: 'compaction', content: 'Summary of everything so far.' }] },
        { role: 'user', content: 'Go on.' },
      ],
    };
    await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    }).then((response) => response.text());
    expect(server.requests[0]?.body).toEqual(body);
    expect(records[0]?.passthrough).toBe('provider compaction');
  });
});
