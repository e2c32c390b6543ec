import { describe, expect, it } from 'vitest';
import { fallbackWarning, savingsLine } from '../cli/wrap/savings-line.js';
import { isSummaryRequest } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

const output = (turn: number) => `output ${turn}\n${'const value = compute(input); // line\n'.repeat(120)}`;

/** A conversation with a mid-conversation system message and `reads` large tool results. */
function conversationWithSystemMessage(reads = 3) {
  const turns = Array.from({ length: reads }, (_, index) => [
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${index}`, name: 'read_file', input: { path: `${index}.ts` } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${index}`, content: output(index) }] },
  ]);
  return [
    { role: 'user', content: 'Read every file.' },
    { role: 'system', content: 'Available agent types: Explore.' },
    ...turns.flat(),
  ];
}

/** Posts `messages` without the system-messages beta: a compaction keeping the system message breaks the rule. */
function post(url: string, messages: unknown[]) {
  return fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 50, tools: [], messages }),
  });
}

const SYSTEM_ROLE_REASON = /^messages\[\d+\]\.role: role must be "user" or "assistant", got "system"/;

describe('a compaction the proxy rejects', () => {
  it('sends the client request as it came and records layer none, naming the layer it tried', async () => {
    const { server, proxy, records } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 300, hard: 600 },
      summarizer: 'extractive',
    });
    const messages = conversationWithSystemMessage();
    await post(proxy.url, messages);
    expect(server.requests[0]?.body.messages).toEqual(messages);
    expect(records[0]).toMatchObject({ layer: 'none' });
    expect(records[0]?.fallback).toMatch(/^compacted request rejected \((micro|mid|hard)\): /);
    expect(records[0]?.tokensOut).toBe(records[0]?.tokensIn);
  });

  it('names the rejections in the stats and the savings line, and wrap warns that every one fell back', async () => {
    const { proxy } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 300, hard: 600 },
      summarizer: 'extractive',
    });
    for (const reads of [3, 4, 5]) await (await post(proxy.url, conversationWithSystemMessage(reads))).text();
    const stats = await proxy.stats();
    expect(stats.fallbacks).toBe(3);
    expect(stats.fallbackReasons).toEqual([
      { kind: 'rejected', reason: expect.stringMatching(SYSTEM_ROLE_REASON), count: 3 },
    ]);
    expect(savingsLine(stats, 'http://dashboard/')).toMatch(
      /, 0 compactions, 3 compactions rejected: messages\[\d+\]\.role: .*, ~\$0\.00 saved, /,
    );
    expect(fallbackWarning(stats)).toMatch(
      /^agent-compact: warning: every compaction fell back \(3 compactions rejected: messages\[\d+\]\.role: /,
    );
  });

  it('asks for no model summary whose compaction would be rejected for a problem the client sent', async () => {
    const { server, proxy, records } = await startProxyOver(
      (request) => (isSummaryRequest(request) ? '## Task and constraints\nRead the files.' : 'ok'),
      { thresholds: { mid: 300, hard: 600 }, summarizer: 'same' },
    );
    for (const reads of [3, 4, 5, 6])
      await (await post(proxy.url, conversationWithSystemMessage(reads))).text();
    expect(records.map((record) => record.fallback)).toEqual(
      Array(4).fill(expect.stringMatching(/^compacted request rejected \(hard\): messages\[\d+\]\.role: /)),
    );
    // Every one tried a hard compaction; its summary was written without a model call.
    expect(server.requests.filter(isSummaryRequest)).toHaveLength(0);
    expect(server.requests).toHaveLength(4);
  });
});
