import { describe, expect, it, vi } from 'vitest';
import { fallbackWarning, savingsLine } from '../cli/wrap/savings-line.js';
import type { ValidationProblem } from '../core/model/problems.js';
import { anthropicLoop, isSummaryRequest, toolCallingScript } from './agent-loops.test-utils.js';
import { firstProblem } from './conversation-exchange.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { startProxy } from './proxy-server.js';
import type { ProxyRequestRecord } from './proxy-stats.js';

// Lets one test make the proxy's check of the compacted request fail, to follow the fallback path.
const forced = vi.hoisted(() => ({ problem: undefined as ValidationProblem | undefined }));
vi.mock('../core/conversation/validate.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../core/conversation/validate.js')>();
  return {
    ...actual,
    validateMessages: (messages: unknown, options?: Parameters<typeof actual.validateMessages>[1]) =>
      forced.problem && options?.relativeTo !== undefined
        ? [forced.problem]
        : actual.validateMessages(messages, options),
  };
});

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

const headers = (beta?: string) => ({
  'content-type': 'application/json',
  'x-api-key': 'k',
  'anthropic-version': '2023-06-01',
  ...(beta ? { 'anthropic-beta': beta } : {}),
});

async function send(proxyUrl: string, beta?: string): Promise<number> {
  const response = await fetch(`${proxyUrl}/v1/messages`, {
    method: 'POST',
    headers: headers(beta),
    body: JSON.stringify({
      model: 'claude-test',
      max_tokens: 50,
      tools: [],
      messages: conversationWithSystemMessage(),
    }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** The same shape with `reads` tool results: each call extends the one before, in one session. */
function growingConversation(reads: number) {
  const output = (turn: number) => `output ${turn}\n${'const value = compute(input); // line\n'.repeat(120)}`;
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

async function post(url: string, messages: unknown[]): Promise<void> {
  const response = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: headers('per-turn-control-2026-07-01'),
    body: JSON.stringify({ model: 'claude-test', max_tokens: 50, tools: [], messages }),
  });
  await response.arrayBuffer();
}

/** Runs `body` with the proxy's check of every compacted request failing on `problem`. */
async function whileRejected(body: () => Promise<void>): Promise<void> {
  forced.problem = { path: 'messages[2].content[0]', message: 'forced', rule: 'unanswered-tool-use' };
  try {
    await body();
  } finally {
    forced.problem = undefined;
  }
}

describe('the check of a compacted request is relative to what the client sent', () => {
  it.each([
    ['per-turn-control-2026-07-01', 200],
    // A beta this proxy does not know: the system message is the client's, so it is not the
    // compaction's fault; the provider (here the scripted server, which knows no such beta) decides.
    ['per-turn-control-2099-01-01', 400],
  ])('sends the compaction upstream when it keeps the client’s system message (%s)', async (beta, status) => {
    const { server, proxy, records } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 300, hard: 600 },
      summarizer: 'extractive',
    });
    expect(await send(proxy.url, beta)).toBe(status);
    expect(records[0]?.fallback).toBeUndefined();
    expect(records[0]?.layer).not.toBe('none');
    const sent = server.requests[0]?.body.messages as { role: string }[];
    expect(sent.filter((message) => message.role === 'system')).toHaveLength(1);
    expect(JSON.stringify(sent).length).toBeLessThan(JSON.stringify(conversationWithSystemMessage()).length);
  });

  it('names what the compaction itself broke, and nothing the input already held', () => {
    const input = conversationWithSystemMessage();
    const body = { model: 'm', messages: input };
    expect(firstProblem('anthropic', body, { sent: input, input }, {})).toBeUndefined();
    const dropped = input.filter((_message, index) => index !== 3);
    expect(firstProblem('anthropic', body, { sent: dropped, input }, {})).toBe(
      'messages[2].content[0]: tool_use "t1" has no tool_result in messages[4]',
    );
    // Without the input to compare with, the system message is the provider's rule break.
    expect(firstProblem('anthropic', body, { sent: input, input: [] }, {})).toMatch(
      /^messages\[1\]\.role: role must be "user" or "assistant", got "system"/,
    );
  });
});

describe('a compaction the proxy rejects', () => {
  it('sends the client request as it came and records layer none, naming the layer it tried', async () => {
    const { server, proxy, records } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 300, hard: 600 },
      summarizer: 'extractive',
    });
    forced.problem = { path: 'messages[2].content[0]', message: 'forced', rule: 'unanswered-tool-use' };
    try {
      expect(await send(proxy.url, 'per-turn-control-2026-07-01')).toBe(200);
    } finally {
      forced.problem = undefined;
    }
    expect(server.requests[0]?.body.messages).toEqual(conversationWithSystemMessage());
    expect(records[0]).toMatchObject({ layer: 'none' });
    expect(records[0]?.fallback).toMatch(/^compacted request rejected \((micro|mid|hard)\): messages\[2\]/);
    expect(records[0]?.tokensOut).toBe(records[0]?.tokensIn);
  });

  it('names the rejections in the stats and the savings line, and wrap warns that every one fell back', async () => {
    const { proxy } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 300, hard: 600 },
      summarizer: 'extractive',
    });
    await whileRejected(async () => {
      for (const reads of [3, 4, 5]) await post(proxy.url, growingConversation(reads));
    });
    const stats = await proxy.stats();
    expect(stats.fallbacks).toBe(3);
    expect(stats.fallbackReasons).toEqual([
      { kind: 'rejected', reason: 'messages[2].content[0]: forced', count: 3 },
    ]);
    expect(savingsLine(stats, 'http://dashboard/')).toMatch(
      /, 0 compactions, 3 compactions rejected: messages\[2\]\.content\[0\]: forced, ~\$0\.00 saved, /,
    );
    expect(fallbackWarning(stats)).toMatch(
      /^agent-compact: warning: every compaction fell back \(3 compactions rejected: messages\[2\]/,
    );
  });

  it('after two rejections for the same reason, asks the model for no more summaries', async () => {
    const { server, proxy, records } = await startProxyOver(
      (request) => (isSummaryRequest(request) ? '## Task and constraints\nRead the files.' : 'ok'),
      { thresholds: { mid: 300, hard: 600 }, summarizer: 'same' },
    );
    await whileRejected(async () => {
      for (const reads of [3, 4, 5, 6]) await post(proxy.url, growingConversation(reads));
    });
    expect(records.map((record) => record.fallback)).toEqual(
      Array(4).fill(expect.stringMatching(/^compacted request rejected \((micro|mid|hard)\): messages\[2\]/)),
    );
    expect(server.requests.filter(isSummaryRequest).length).toBeLessThanOrEqual(2);
    expect(server.requests.filter((request) => !isSummaryRequest(request))).toHaveLength(4);
  });
});

describe('a rejected compaction on a model with preserved thinking', () => {
  it('goes on from the proxy’s own history, not the client’s copy, whose thinking was written after it', async () => {
    const { server, proxy, records } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 3000, hard: 6000 },
      log: () => {},
    });
    let sent = 0;
    await anthropicLoop(proxy.url, {
      turns: 16,
      stream: true,
      thinking: true,
      model: 'claude-opus-5-5',
      onRequest: () => {
        // Once a compaction went upstream, every later one is refused by the proxy's own check.
        sent += 1;
        if (records.some((record) => record.layer !== 'none' && record.fallback === undefined))
          forced.problem = { path: 'messages[2].content[0]', message: 'forced', rule: 'unanswered-tool-use' };
      },
    });
    forced.problem = undefined;
    expect(sent).toBe(16);
    expect(records.some((record) => record.fallback !== undefined)).toBe(true);
    expect(server.requests.filter((request) => request.outcome === 'invalid-request')).toEqual([]);
  });
  it('a conversation a new proxy picks up goes without its thinking even when the compaction is refused', async () => {
    const options = { stream: true, thinking: true, model: 'claude-opus-5-5' };
    const { server, proxy, records } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 3000, hard: 6000 },
      log: () => {},
    });
    const history = await anthropicLoop(proxy.url, { ...options, turns: 12 });
    expect(records.some((record) => record.layer !== 'none')).toBe(true);
    // The new proxy cannot know the prefix the client's thinking was written on, and its own
    // check refuses every compaction: what goes upstream is the client's history, unbound.
    const picked: ProxyRequestRecord[] = [];
    const second = await startProxy({
      upstream: server.url,
      thresholds: { mid: 3000, hard: 6000 },
      onRequest: (record) => picked.push(record),
      log: () => {},
    });
    forced.problem = { path: 'messages[2].content[0]', message: 'forced', rule: 'unanswered-tool-use' };
    const resumed = await anthropicLoop(second.url, { ...options, turns: 1, resume: history }).finally(() => {
      forced.problem = undefined;
      return second.close();
    });
    expect(resumed.length).toBe(history.length + 2);
    expect(picked[0]?.fallback).toMatch(/^compacted request rejected/);
    expect(server.requests.filter((request) => request.outcome === 'invalid-request')).toEqual([]);
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).not.toContain('scripted-signature-');
  });
  it('a request the compactor cannot read goes upstream as it came, unbound thinking or not: no 502', async () => {
    const { server, proxy, records } = await startProxyOver(toolCallingScript, {
      thresholds: { mid: 3000, hard: 6000 },
      log: () => {},
    });
    const messages = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'plan', signature: 's' }] },
      null,
    ];
    const response = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ model: 'claude-opus-5-5', max_tokens: 50, messages }),
    });
    await response.arrayBuffer();
    // The provider, not the proxy, says what is wrong with it.
    expect(response.status).toBeLessThan(500);
    expect(server.requests).toHaveLength(1);
    expect(records[0]?.fallback).toMatch(/^compaction failed/);
  });
});
