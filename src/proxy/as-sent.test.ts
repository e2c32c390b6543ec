import { describe, expect, it } from 'vitest';
import { isSummaryRequest } from './agent-loops.test-utils.js';
import { wrongTypeReason } from './as-sent.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

/** Three large tool results: over the thresholds below, so a hard compaction would run. */
function conversation() {
  const output = (turn: number) => `output ${turn}\n${'const value = compute(input); // line\n'.repeat(120)}`;
  const turns = [1, 2, 3].map((turn) => [
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${turn}`, name: 'read_file', input: { path: `${turn}.ts` } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${turn}`, content: output(turn) }] },
  ]);
  return [{ role: 'user', content: 'Read every file.' }, ...turns.flat()];
}

describe('a request with a field of the wrong JSON type', () => {
  it('goes upstream as it came, with no summary call, recorded as a fallback that names the field', async () => {
    const lines: string[] = [];
    const { server, proxy, records } = await startProxyOver(
      (request) => (isSummaryRequest(request) ? '## Task and constraints\nRead the files.' : 'ok'),
      { thresholds: { mid: 300, hard: 600 }, summarizer: 'same', log: (line) => lines.push(line) },
    );
    const body = { model: 5, max_tokens: 50, messages: conversation() };
    const response = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    expect(server.requests.filter(isSummaryRequest)).toEqual([]);
    expect(server.requests.map((request) => request.body)).toEqual([body]);
    expect(records[0]).toMatchObject({
      layer: 'none',
      fallback: 'request not compacted: model must be a string, got 5',
    });
    expect(lines.join('\n')).toContain('request not compacted: model must be a string, got 5');
  });

  it.each([
    ['anthropic', { model: 'm', max_tokens: '50', messages: [] }, 'max_tokens must be a number, got "50"'],
    [
      'openai',
      { model: 'm', messages: [{ role: 'user', content: 'hi', name: 5 }] },
      'messages[0].name must be a string, got 5',
    ],
    [
      'responses',
      { model: 'm', input: [{ type: 'message', role: 'user', content: 'hi', status: {} }] },
      'input[0].status must be a string, got {}',
    ],
    ['gemini', { contents: [{ role: 'user', parts: 'hi' }] }, 'contents[0].parts must be an array, got "hi"'],
    [
      'gemini',
      { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generation_config: 'fast' },
      'generation_config must be an object, got "fast"',
    ],
    [
      'gemini',
      { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], system_instruction: ['Be brief.'] },
      'system_instruction must be an object, got ["Be brief."]',
    ],
  ] as const)('%s: names the first wrong field', (api, body, reason) => {
    expect(wrongTypeReason(api, body)).toBe(reason);
  });

  it('passes null and absent optional fields, and every field of the right type', () => {
    expect(
      wrongTypeReason('openai', {
        model: 'gpt',
        temperature: null,
        messages: [{ role: 'assistant', content: null, tool_calls: [] }],
      }),
    ).toBeUndefined();
    expect(wrongTypeReason('anthropic', { model: 'claude', max_tokens: 5, messages: conversation() })).toBe(
      undefined,
    );
  });
});
