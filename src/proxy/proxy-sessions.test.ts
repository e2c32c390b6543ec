import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { estimateRequestTokens, type ScriptedModelServer } from '../testing/index.js';
import {
  anthropicLoop,
  isSummaryRequest,
  openAIChatLoop,
  responsesLoop,
  slowSummaryScript,
  toolCallingScript,
} from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import type { ProxyOptions } from './proxy-options.js';
import { fingerprintMessage } from './session-identity.js';

const startProxyOver = useProxyHarness();

/** The tool-calling script behind a proxy that compacts early, with the extractive summarizer. */
function start(options: Partial<ProxyOptions> = {}) {
  return startProxyOver(toolCallingScript, {
    thresholds: { mid: 3000, hard: 6000 },
    summarizer: 'extractive',
    ...options,
  });
}

/** The conversation of each agent request the server saw, as fingerprints (breakpoints ignored). */
function upstreamConversations(requests: ScriptedModelServer['requests']): string[][] {
  return requests
    .filter((request) => !isSummaryRequest(request))
    .map((request) => ((request.body.messages as unknown[]) ?? []).map(fingerprintMessage));
}

function isPrefix(prefix: readonly string[], of: readonly string[]): boolean {
  return prefix.length <= of.length && prefix.every((item, index) => item === of[index]);
}

describe('proxy sessions', () => {
  it.each([false, true])(
    'Anthropic tool loop (stream %s): compaction fires, every request valid, prefix stable between compactions',
    async (stream) => {
      const { server, proxy, records } = await start();
      const sent: Record<string, unknown>[] = [];
      await anthropicLoop(proxy.url, {
        turns: 14,
        stream,
        moveBreakpoint: true,
        onRequest: (body) => sent.push(body),
      });
      const agentRequests = server.requests.filter((request) => !isSummaryRequest(request));
      expect(agentRequests.map((request) => request.outcome)).toEqual(Array(14).fill('tool-calls'));
      expect(records.some((record) => record.layer !== 'none')).toBe(true);
      const last = agentRequests.at(-1)!;
      expect(last.inputTokens).toBeLessThan(estimateRequestTokens('anthropic', sent.at(-1)!));
      const conversations = upstreamConversations(server.requests);
      for (let index = 1; index < records.length; index += 1) {
        // A request that compacted nothing extends the previous upstream conversation byte for byte.
        if (records[index]?.layer === 'none')
          expect(isPrefix(conversations[index - 1]!, conversations[index]!)).toBe(true);
      }
    },
  );

  it('OpenAI chat tool loop, streamed: compaction fires and every request is valid', async () => {
    const { server, proxy, records } = await start();
    const sent: Record<string, unknown>[] = [];
    await openAIChatLoop(`${proxy.url}/v1`, {
      turns: 12,
      stream: true,
      onRequest: (body) => sent.push(body),
    });
    expect(server.requests.map((request) => request.outcome)).toEqual(Array(12).fill('tool-calls'));
    expect(records.some((record) => record.layer !== 'none')).toBe(true);
    expect(server.requests.at(-1)!.inputTokens).toBeLessThan(estimateRequestTokens('openai', sent.at(-1)!));
  });

  it('sends no recall ids when the model has no recall tool, even after a hard summary', async () => {
    const { server, proxy, records } = await start({ thresholds: { mid: 1500, hard: 2500 } });
    await anthropicLoop(proxy.url, { turns: 12 });
    expect(records.some((record) => record.layer === 'hard')).toBe(true);
    const upstream = JSON.stringify(server.requests.map((request) => request.body));
    expect(upstream.includes('<context_summary>')).toBe(true);
    expect(upstream.match(/recall r\d+|recall="r\d+"|the recall tool/)).toBeNull();
  });

  it.each([false, true])(
    'OpenAI Responses tool loop (stream %s): compaction fires and every request is valid',
    async (stream) => {
      const { server, proxy, records } = await start();
      const sent: Record<string, unknown>[] = [];
      await responsesLoop(`${proxy.url}/v1`, { turns: 12, stream, onRequest: (body) => sent.push(body) });
      expect(server.requests.map((request) => request.outcome)).toEqual(Array(12).fill('tool-calls'));
      expect(records.some((record) => record.layer !== 'none')).toBe(true);
      const size = (body: Record<string, unknown>) => JSON.stringify(body.input).length;
      expect(size(server.requests.at(-1)!.body)).toBeLessThan(size(sent.at(-1)!));
    },
  );

  it('compacts a conversation with a mid-conversation system message and keeps that message as it came', async () => {
    // Provider rules on: the server takes system messages only under their beta, which the client sends.
    const { server, proxy, records } = await start();
    const note = 'Available agent types: Explore, Plan.';
    await anthropicLoop(proxy.url, { turns: 14, systemMessage: note });
    expect(records.some((record) => record.layer !== 'none')).toBe(true);
    expect(records.filter((record) => record.fallback !== undefined)).toEqual([]);
    expect(server.requests.map((request) => request.outcome)).toEqual(Array(14).fill('tool-calls'));
    for (const request of server.requests) {
      expect(request.body.messages).toContainEqual({ role: 'system', content: note });
    }
  });

  it('forwards a system-message conversation without the beta unchanged, for the provider to reject', async () => {
    const { server, proxy } = await start({ thresholds: { mid: 100, hard: 200 } });
    const sent: Record<string, unknown>[] = [];
    const failure = await anthropicLoop(proxy.url, {
      turns: 1,
      systemMessage: 'Available agent types: Explore.',
      headers: { 'anthropic-beta': 'prompt-caching-scope-2026-01-05' },
      onRequest: (body) => sent.push(body),
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.BadRequestError);
    expect(server.requests[0]?.outcome).toBe('invalid-request');
    expect(server.requests[0]?.body.messages).toEqual(sent[0]?.messages);
  });

  it('--background: a slow summary does not hold the client up, and a later request carries it', async () => {
    const slow = slowSummaryScript();
    const { server, proxy, records } = await startProxyOver(slow.script, {
      // The background limit is hard plus the mid-to-hard span: room for the requests below.
      thresholds: { mid: 500, hard: 2500 },
      background: true,
    });
    await anthropicLoop(proxy.url, { turns: 16 });
    expect(server.requests.map((request) => request.outcome)).not.toContain('invalid-request');
    expect(slow.summaries).toBeGreaterThanOrEqual(1);
    // The client's requests went on while the summary was being written, none waiting for it…
    expect(slow.requestsDuringSummary).toBeGreaterThanOrEqual(2);
    expect(Math.max(...records.map((record) => record.ms))).toBeLessThan(2000);
    // …and a later request carries the summary in place of the history it covers, the messages
    // added while it was written after it.
    const agentRequests = server.requests.filter((request) => !isSummaryRequest(request));
    expect(records).toHaveLength(agentRequests.length);
    const swap = records.findIndex((record) => record.layer === 'hard');
    expect(swap).toBeGreaterThan(0);
    expect(JSON.stringify(agentRequests[swap]?.body)).toContain('<context_summary');
    expect(JSON.stringify(agentRequests[swap - 1]?.body)).not.toContain('<context_summary');
  });

  it('starts over without error when the client rewinds after a compaction', async () => {
    const { server, proxy, records } = await start();
    const history = await anthropicLoop(proxy.url, { turns: 12 });
    expect(records.some((record) => record.layer !== 'none')).toBe(true);
    const client = new Anthropic({ apiKey: 'test-key', baseURL: proxy.url, maxRetries: 0 });
    const rewound = [...history.slice(0, 3), { role: 'user' as const, content: 'Forget that; start again.' }];
    const rewoundMessages: Anthropic.MessageParam[] = [
      history[0]!,
      history[1]!,
      {
        role: 'user',
        content: [
          ...(history[2]!.content as Anthropic.ContentBlockParam[]),
          { type: 'text', text: 'Start again.' },
        ],
      },
    ];
    await client.messages.create({ model: 'claude-test', max_tokens: 100, messages: rewoundMessages });
    expect(records.at(-1)).toMatchObject({ restarted: true, status: 200 });
    expect(server.requests.at(-1)!.body.messages).toEqual(rewoundMessages);
    expect(rewound).toHaveLength(4);
  });

  it('keeps concurrent sessions apart and each in order', async () => {
    const { server, proxy } = await start();
    const tasks = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    await Promise.all(tasks.map((task) => anthropicLoop(proxy.url, { turns: 10, task: `Task ${task}` })));
    expect(server.requests.filter((request) => request.outcome !== 'tool-calls')).toEqual([]);
    for (const task of tasks) {
      const own = server.requests.filter((request) =>
        JSON.stringify(request.body.messages).includes(`Task ${task}`),
      );
      expect(own).toHaveLength(10);
    }
    expect((await proxy.stats()).sessions).toBe(5);
  });

  it('handles the requests of one session one after another, other sessions meanwhile', async () => {
    const arrivals: { task: string; at: number }[] = [];
    const { proxy } = await startProxyOver(async (request) => {
      const task = JSON.stringify(request.body.messages).includes('slow') ? 'slow' : 'other';
      arrivals.push({ task, at: performance.now() });
      if (arrivals.length === 1) await new Promise((resolve) => setTimeout(resolve, 300));
      return 'ok';
    });
    const client = (session: string) =>
      new Anthropic({
        apiKey: 'k',
        baseURL: proxy.url,
        maxRetries: 0,
        defaultHeaders: { 'x-agent-compact-session': session },
      });
    const ask = (session: string, text: string) =>
      client(session).messages.create({
        model: 'm',
        max_tokens: 10,
        messages: [{ role: 'user', content: text }],
      });
    const first = ask('a', 'slow one');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all([first, ask('a', 'slow two'), ask('b', 'other')]);
    const [firstArrival, secondArrival, thirdArrival] = arrivals;
    // Session b did not wait for session a's slow answer; a's second request did.
    expect(secondArrival?.task).toBe('other');
    expect(secondArrival!.at).toBeLessThan(thirdArrival!.at);
    expect(thirdArrival!.at - firstArrival!.at).toBeGreaterThanOrEqual(290);
  });

  it('names sessions by the x-agent-compact-session header', async () => {
    const { server, proxy } = await start();
    await anthropicLoop(proxy.url, { turns: 2, headers: { 'x-agent-compact-session': 'one' } });
    await anthropicLoop(proxy.url, {
      turns: 2,
      task: 'Other task',
      headers: { 'x-agent-compact-session': 'one' },
    });
    expect((await proxy.stats()).sessions).toBe(1);
    expect(server.requests.every((request) => request.headers['x-agent-compact-session'] === undefined)).toBe(
      true,
    );
  });
});
