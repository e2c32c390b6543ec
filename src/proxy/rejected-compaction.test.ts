import { describe, expect, it } from 'vitest';
import { useProxyHarness } from './proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

/** A conversation with a mid-conversation system message and two large tool results. */
function conversationWithSystemMessage() {
  const output = (turn: number) => `output ${turn}\n${'const value = compute(input); // line\n'.repeat(120)}`;
  return [
    { role: 'user', content: 'Read every file.' },
    { role: 'system', content: 'Available agent types: Explore.' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.ts' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: output(1) }] },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't2', name: 'read_file', input: { path: 'b.ts' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: output(2) }] },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't3', name: 'read_file', input: { path: 'c.ts' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't3', content: output(3) }] },
  ];
}

describe('a compaction the proxy rejects', () => {
  it('sends the client request as it came and records layer none, naming the layer it tried', async () => {
    const { server, proxy, records } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 300, hard: 600 },
      summarizer: 'extractive',
    });
    const messages = conversationWithSystemMessage();
    // No system-messages beta: a compacted request keeping the system message breaks the rule.
    await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 50, tools: [], messages }),
    });
    expect(server.requests[0]?.body.messages).toEqual(messages);
    expect(records[0]).toMatchObject({ layer: 'none' });
    expect(records[0]?.fallback).toMatch(/^compacted request rejected \((micro|mid|hard)\): /);
    expect(records[0]?.tokensOut).toBe(records[0]?.tokensIn);
  });
});
