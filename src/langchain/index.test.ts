import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { type AgentMiddleware, ClearToolUsesEdit, contextEditingMiddleware, createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { createMemorySessionStateStore } from '../core/archive/memory-session-state-store.js';
import type { CompactionEvent } from '../core/events.js';
import {
  moduleIndex,
  moduleText,
  READING_ANSWER,
  READING_STEPS,
  READING_TASK,
  READING_WINDOW,
  rejectedRequests,
  startReadingServer,
} from '../testing/_reading-task.js';
import type { ScriptedModelServer } from '../testing/index.js';
import { agentCompactMiddleware, createRecallTool } from './index.js';

const steps = READING_STEPS;
const window = READING_WINDOW;
const answer = READING_ANSWER;

const readFile = tool(async (input: { path: string }) => moduleText(moduleIndex(input.path)), {
  name: 'read_file',
  description: 'Read a file of the workspace',
  schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
});

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start() {
  server = await startReadingServer();
  return server;
}

function agentWith(
  scripted: ScriptedModelServer,
  middleware: AgentMiddleware[],
  tools: StructuredToolInterface[] = [readFile],
) {
  const model = new ChatOpenAI({
    model: 'gpt-test',
    apiKey: 'test-key',
    maxRetries: 0,
    configuration: { baseURL: scripted.openaiBaseURL },
  });
  return createAgent({
    model,
    tools,
    systemPrompt: 'You read files and report on them.',
    middleware,
  });
}

const task = READING_TASK;
const accepted = rejectedRequests;

describe('agentCompactMiddleware', () => {
  it('per model call: a 40-step agent on a 32k window finishes, the graph state keeps every message', async () => {
    const scripted = await start();
    const events: CompactionEvent[] = [];
    const agent = agentWith(scripted, [
      agentCompactMiddleware({ contextWindow: window, onEvent: (event) => events.push(event) }),
    ]);
    const state = await agent.invoke({ messages: [new HumanMessage(task)] }, { recursionLimit: 200 });
    const messages = state.messages as BaseMessage[];
    expect(messages.at(-1)?.content).toBe(answer);
    expect(scripted.requests).toHaveLength(steps + 1);
    expect(accepted(scripted)).toEqual([]);
    expect(events.some((event) => event.type === 'compaction-end' && event.layer === 'micro')).toBe(true);
    // State untouched: all 40 tool results are there in full.
    const results = messages.filter((message) => message.type === 'tool');
    expect(results).toHaveLength(steps);
    expect(String(results[0]!.content)).toContain('value0 = compute');
    // What the model saw was compacted: the first result became a placeholder, which names no
    // archive id: the agent has no `recall` tool.
    const lastRequest = JSON.stringify(scripted.requests.at(-1)!.body);
    expect(lastRequest).toContain('[Previous: used read_file');
    expect(lastRequest).not.toMatch(/recall r\d+/);
  });

  it.each([
    ['offered, recall unset', true, undefined, true],
    ['offered, recall: false', true, false, false],
    ['not offered, recall: true', false, true, false],
  ])(
    'names archive ids in placeholders only when the agent offers recall (%s)',
    async (_name, offered, recall, named) => {
      const scripted = await start();
      const recallTool = createRecallTool({ archive: createMemoryArchiveStore(), sessionId: 'unused' });
      const agent = agentWith(
        scripted,
        [agentCompactMiddleware({ contextWindow: window, ...(recall === undefined ? {} : { recall }) })],
        offered ? [readFile, recallTool] : [readFile],
      );
      await agent.invoke({ messages: [new HumanMessage(task)] }, { recursionLimit: 200 });
      const lastRequest = JSON.stringify(scripted.requests.at(-1)!.body);
      expect(lastRequest).toContain('[Previous: used read_file');
      expect(/recall r\d+/.test(lastRequest)).toBe(named);
    },
  );

  it('without it, the same agent overflows the window', async () => {
    const scripted = await start();
    await expect(
      agentWith(scripted, []).invoke({ messages: [new HumanMessage(task)] }, { recursionLimit: 200 }),
    ).rejects.toThrow();
    expect(scripted.requests.some((request) => request.outcome === 'prompt-too-long')).toBe(true);
  });

  it('persist: true writes the compacted conversation into the graph state through the reducer', async () => {
    const scripted = await start();
    const archive = createMemoryArchiveStore();
    const agent = agentWith(scripted, [
      agentCompactMiddleware({ contextWindow: window, persist: true, archive }),
    ]);
    const state = await agent.invoke({ messages: [new HumanMessage(task)] }, { recursionLimit: 200 });
    const messages = state.messages as BaseMessage[];
    expect(messages.at(-1)?.content).toBe(answer);
    expect(accepted(scripted)).toEqual([]);
    const results = messages.filter((message) => message.type === 'tool');
    expect(results).toHaveLength(steps);
    // `beforeModel` is not told the tools: no archive ids without `recall: true`.
    expect(String(results[0]!.content)).toMatch(/^\[Previous: used read_file[^\]]*\]$/);
    expect(String(results[0]!.content)).not.toMatch(/recall r\d+/);
    // Every tool call in the state still has its result: the state is a valid conversation.
    const callIds = messages
      .flatMap((message) => (message as { tool_calls?: { id: string }[] }).tool_calls ?? [])
      .map((call) => call.id);
    expect(new Set(results.map((message) => (message as { tool_call_id?: string }).tool_call_id))).toEqual(
      new Set(callIds),
    );
    // The call after a compaction holds the compacted messages it wrote: it continues the same thread.
    expect(await archive.sessions?.()).toHaveLength(1);
  });

  it('persist: true names archive ids with recall: true', async () => {
    const scripted = await start();
    const recallTool = createRecallTool({ archive: createMemoryArchiveStore(), sessionId: 'unused' });
    const agent = agentWith(
      scripted,
      [agentCompactMiddleware({ contextWindow: window, persist: true, recall: true })],
      [readFile, recallTool],
    );
    const state = await agent.invoke({ messages: [new HumanMessage(task)] }, { recursionLimit: 200 });
    const results = (state.messages as BaseMessage[]).filter((message) => message.type === 'tool');
    expect(String(results[0]!.content)).toMatch(/^\[Previous: .*recall r1\]$/);
  });

  it('keeps the system messages of the list, first, in both modes', async () => {
    for (const persist of [false, true]) {
      const scripted = await start();
      const agent = agentWith(scripted, [agentCompactMiddleware({ contextWindow: window, persist })]);
      const rule = new SystemMessage('Quote every file name in backticks.');
      const state = await agent.invoke({ messages: [rule, new HumanMessage(task)] }, { recursionLimit: 200 });
      expect(accepted(scripted)).toEqual([]);
      // Every request, compacted or not, carries the rule; the state keeps it.
      const carrying = scripted.requests.filter((request) =>
        JSON.stringify(request.body).includes('Quote every file name in backticks.'),
      );
      expect(carrying).toHaveLength(scripted.requests.length);
      expect((state.messages as BaseMessage[]).filter((message) => message.type === 'system')).toEqual([
        rule,
      ]);
      await scripted.close();
      server = undefined;
    }
  });

  it('keeps a system message where it sits in the list, in both modes', async () => {
    // ChatOpenAI sends a mid-list SystemMessage in place (ChatAnthropic and the Google models
    // refuse one that is not first, rather than move it): its position is the app's to choose.
    for (const persist of [false, true]) {
      const scripted = await start();
      const agent = agentWith(scripted, [agentCompactMiddleware({ contextWindow: window, persist })]);
      const rule = new SystemMessage('Quote every file name in backticks.');
      const state = await agent.invoke({ messages: [new HumanMessage(task), rule] }, { recursionLimit: 200 });
      expect(accepted(scripted)).toEqual([]);
      // Every request, compacted or not, has the rule after the task, where the app put it.
      const roles = scripted.requests.map((request) =>
        ((request.body as { messages: { role: string; content: unknown }[] }).messages ?? [])
          .slice(0, 3)
          .map((message) => message.role),
      );
      expect(roles).toEqual(scripted.requests.map(() => ['system', 'user', 'system']));
      const messages = state.messages as BaseMessage[];
      expect(messages.slice(0, 2).map((message) => message.type)).toEqual(['human', 'system']);
      expect(messages[1]).toBe(rule);
      await scripted.close();
      server = undefined;
    }
  });

  it('puts a system message back before the tool result it stood before when micro rewrote that', async () => {
    const rule = new SystemMessage('The screenshots are of a staging server.');
    const screenshot = {
      type: 'image',
      source_type: 'base64',
      mime_type: 'image/png',
      data: 'iVBORw0KGgo'.repeat(3_000),
    };
    const messages: BaseMessage[] = [new HumanMessage('Watch the screen.')];
    for (let index = 0; index < 20; index++) {
      messages.push(
        new AIMessage({ content: '', tool_calls: [{ id: `call_${index}`, name: 'screenshot', args: {} }] }),
      );
      if (index === 0) messages.push(rule);
      messages.push(new ToolMessage({ tool_call_id: `call_${index}`, content: [screenshot] as never }));
    }
    const seen = await callWrapModelCall(agentCompactMiddleware({ contextWindow: 40_000 }), messages);
    expect(seen).toHaveLength(messages.length);
    // The first result was masked (a new object), and the rule still stands before it.
    expect(seen[2]).toBe(rule);
    expect(seen[3]).not.toBe(messages[3]);
    expect((seen[3] as ToolMessage).tool_call_id).toBe('call_0');
  });

  it('keeps one conversation when an earlier middleware rewrites older messages on every call', async () => {
    // LangChain's own context editing clears older tool results before each model call: no call
    // repeats the one before it, yet it is the same conversation, with one compactor.
    const scripted = await start();
    const store = createMemorySessionStateStore();
    const loaded: string[] = [];
    const stateStore = {
      ...store,
      load: (sessionId: string) => {
        loaded.push(sessionId);
        return store.load(sessionId);
      },
    };
    const agent = agentWith(scripted, [
      contextEditingMiddleware({
        edits: [new ClearToolUsesEdit({ trigger: { tokens: 6_000 }, keep: { messages: 3 } })],
      }),
      agentCompactMiddleware({ contextWindow: window, stateStore }),
    ]);
    const state = await agent.invoke({ messages: [new HumanMessage(task)] }, { recursionLimit: 200 });
    expect((state.messages as BaseMessage[]).at(-1)?.content).toBe(answer);
    expect(accepted(scripted)).toEqual([]);
    // The edits did happen: the last request holds cleared results.
    expect(JSON.stringify(scripted.requests.at(-1)!.body)).toContain('[cleared]');
    expect(new Set(loaded).size).toBe(1);
  });

  it('keeps one conversation when the system prompt changes on every call', async () => {
    // Apps put what changes (the time, retrieved context) in the system prompt of each call.
    const changing = await threeCalls((call) => `You read files. Call ${call}.`);
    const constant = await threeCalls(() => 'You read files.');
    expect(constant.hardRuns).toBeGreaterThan(0);
    expect(changing.hardRuns).toBe(constant.hardRuns);
    expect(changing.seen.map((message) => message.content)).toEqual(
      constant.seen.map((message) => message.content),
    );
  });

  it('keeps a message type it does not know, with one warning', async () => {
    const warnings: string[] = [];
    const middleware = agentCompactMiddleware({
      contextWindow: window,
      onWarning: (line) => warnings.push(line),
    });
    const odd = Object.assign(new HumanMessage('note from a plugin'), { type: 'generic' });
    const seen = await callWrapModelCall(middleware, [new HumanMessage('hi'), odd]);
    expect(seen[1]).toBe(odd);
    expect(warnings).toEqual(['agent-compact: message type "generic" is not converted; it is kept whole']);
  });

  it('repairs a tool call left without its result, as the core does, with a warning', async () => {
    const warnings: string[] = [];
    const middleware = agentCompactMiddleware({
      contextWindow: window,
      onWarning: (line) => warnings.push(line),
    });
    const orphan = new AIMessage({
      content: '',
      tool_calls: [{ id: 'call_1', name: 'read_file', args: { path: 'a.ts' } }],
    });
    const seen = await callWrapModelCall(middleware, [
      new HumanMessage('read a.ts'),
      orphan,
      new HumanMessage('never mind'),
    ]);
    const answer = seen.find((message) => message.type === 'tool') as { tool_call_id?: string } | undefined;
    expect(answer?.tool_call_id).toBe('call_1');
    expect(warnings.some((line) => line.startsWith('agent-compact: repaired: '))).toBe(true);
  });

  describe('images', () => {
    // A 300 kB screenshot: about 1,600 tokens as an image, about 100,000 as base64 text.
    const data = Buffer.alloc(300_000, 7).toString('base64');
    const forms: [string, Record<string, unknown>][] = [
      ['image_url { url }', { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } }],
      ['image_url string', { type: 'image_url', image_url: `data:image/png;base64,${data}` }],
      ['source_type base64', { type: 'image', source_type: 'base64', mime_type: 'image/png', data }],
      ['standard data', { type: 'image', mimeType: 'image/png', data }],
    ];
    const screenshotCall = (id: string) =>
      new AIMessage({ content: '', tool_calls: [{ id, name: 'screenshot', args: {} }] });

    it.each(forms)(
      'counts a %s screenshot in a tool message as an image and sends it back as it came',
      async (_name, block) => {
        const events: CompactionEvent[] = [];
        const messages = [
          new HumanMessage('Look at the screen.'),
          screenshotCall('call_1'),
          new ToolMessage({ tool_call_id: 'call_1', content: [block] as never }),
        ];
        const seen = await callWrapModelCall(
          agentCompactMiddleware({ contextWindow: 128_000, onEvent: (event) => events.push(event) }),
          messages,
        );
        expect(events).toEqual([]);
        expect(seen).toHaveLength(messages.length);
        for (const [index, message] of seen.entries()) expect(message).toBe(messages[index]);
      },
    );

    it.each(forms)(
      'counts a %s image in a human message as an image and sends it back as it came',
      async (_name, block) => {
        const events: CompactionEvent[] = [];
        const messages = [
          new HumanMessage({ content: [{ type: 'text', text: 'What is this?' }, block] as never }),
        ];
        const seen = await callWrapModelCall(
          agentCompactMiddleware({ contextWindow: 128_000, onEvent: (event) => events.push(event) }),
          messages,
        );
        expect(events).toEqual([]);
        expect(seen).toHaveLength(1);
        expect(seen[0]).toBe(messages[0]);
      },
    );

    it.each<[string, Record<string, unknown>]>([
      [
        'base64',
        { type: 'image', source_type: 'base64', mime_type: 'image/png', data: 'iVBORw0KGgo'.repeat(3_000) },
      ],
      // Held by a provider's file id: billed as the image it is, not as its few characters of JSON.
      ['standard fileId', { type: 'image', fileId: 'file-screen', mimeType: 'image/png' }],
      ['source_type id', { type: 'image', source_type: 'id', id: 'file-screen' }],
    ])(
      'masks older %s screenshots as tool results, keeping the latest as the caller wrote it',
      async (_name, screenshot) => {
        const messages: BaseMessage[] = [new HumanMessage('Watch the screen.')];
        for (let index = 0; index < 20; index++) {
          messages.push(screenshotCall(`call_${index}`));
          messages.push(new ToolMessage({ tool_call_id: `call_${index}`, content: [screenshot] as never }));
        }
        const events: CompactionEvent[] = [];
        const seen = await callWrapModelCall(
          agentCompactMiddleware({ contextWindow: 40_000, onEvent: (event) => events.push(event) }),
          messages,
        );
        const layers = events.flatMap((event) => (event.type === 'compaction-end' ? [event.layer] : []));
        expect(layers.length).toBeGreaterThan(0);
        expect(layers).not.toContain('hard');
        expect(seen.at(-1)).toBe(messages.at(-1));
        const masked = seen.filter((message) => message.type === 'tool' && !messages.includes(message));
        expect(masked.length).toBeGreaterThan(0);
        for (const message of masked) expect(String(message.content)).toContain('screenshot');
      },
    );
  });
});

/**
 * Three model calls of one growing conversation over hard, each with the system prompt `systemOf`
 * gives: how many hard compactions ran, and what the last call handed the model.
 */
async function threeCalls(systemOf: (call: number) => string) {
  const events: CompactionEvent[] = [];
  const middleware = agentCompactMiddleware({
    thresholds: { mid: 3_000, hard: 5_000 },
    onEvent: (event) => events.push(event),
  });
  const messages: BaseMessage[] = [new HumanMessage(task)];
  const read = (index: number) => {
    const call = { id: `call_${index}`, name: 'read_file', args: { path: `m${index}.ts` } };
    messages.push(new AIMessage({ content: '', tool_calls: [call] }));
    messages.push(new ToolMessage({ tool_call_id: call.id, content: moduleText(index) }));
  };
  for (let index = 0; index < 12; index++) read(index);
  let seen: BaseMessage[] = [];
  for (let call = 0; call < 3; call++) {
    seen = await callWrapModelCall(middleware, [...messages], [], systemOf(call));
    read(12 + call);
  }
  const hardRuns = events.filter((event) => event.type === 'compaction-end' && event.layer === 'hard').length;
  return { hardRuns, seen };
}

/** Calls the middleware's `wrapModelCall` with `messages`; returns the messages the model is handed. */
async function callWrapModelCall(
  middleware: ReturnType<typeof agentCompactMiddleware>,
  messages: BaseMessage[],
  tools: { name: string }[] = [],
  systemPrompt = '',
): Promise<BaseMessage[]> {
  let seen: BaseMessage[] = [];
  const hook = (
    middleware as unknown as {
      wrapModelCall: (
        request: unknown,
        handler: (request: { messages: BaseMessage[] }) => unknown,
      ) => Promise<unknown>;
    }
  ).wrapModelCall;
  await hook({ messages, systemPrompt, tools }, (request) => {
    seen = request.messages;
    return {};
  });
  return seen;
}
