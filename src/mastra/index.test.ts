import { afterEach, describe, expect, it } from 'vitest';
import type { CompactionEvent } from '../core/events.js';
import {
  moduleIndex,
  moduleText,
  nodeRunsMastra,
  READING_ANSWER,
  READING_STEPS,
  READING_TASK,
  READING_WINDOW,
  rejectedRequests,
  startReadingServer,
} from '../testing/_reading-task.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';

const supported = nodeRunsMastra();
if (!supported)
  console.warn(`agent-compact/mastra tests skipped: Mastra needs Node 22.13+, this is ${process.version}`);

const steps = READING_STEPS;
const window = READING_WINDOW;
const answer = READING_ANSWER;

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function agentOn(scripted: ScriptedModelServer, inputProcessors: unknown[], memory?: unknown) {
  const { Agent } = await import('@mastra/core/agent');
  const { createTool } = await import('@mastra/core/tools');
  const { z } = await import('zod');
  const readFile = createTool({
    id: 'read_file',
    description: 'Read a file of the workspace',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => moduleText(moduleIndex(path)),
  });
  return new Agent({
    id: 'reader',
    name: 'reader',
    instructions: 'You read files and report on them.',
    model: { providerId: 'openai', modelId: 'gpt-test', url: scripted.openaiBaseURL, apiKey: 'test-key' },
    tools: { read_file: readFile },
    inputProcessors: inputProcessors as never,
    ...(memory === undefined ? {} : { memory: memory as never }),
  });
}

async function start() {
  server = await startReadingServer();
  return server;
}

describe.skipIf(!supported)('AgentCompactProcessor', () => {
  it('keeps a 40-step Mastra agent on a 32k window valid and under the window', async () => {
    const { AgentCompactProcessor } = await import('./index.js');
    const scripted = await start();
    const events: CompactionEvent[] = [];
    const processor = new AgentCompactProcessor({
      contextWindow: window,
      onEvent: (event) => events.push(event),
    });
    const agent = await agentOn(scripted, [processor]);
    const result = await agent.generate(READING_TASK, { maxSteps: steps + 5 });
    expect(result.text).toBe(answer);
    expect(scripted.requests).toHaveLength(steps + 1);
    expect(rejectedRequests(scripted)).toEqual([]);
    expect(events.some((event) => event.type === 'compaction-end' && event.layer === 'micro')).toBe(true);
    // The agent's own record keeps every tool result whole.
    expect(result.steps).toHaveLength(steps + 1);
    expect(JSON.stringify(result.steps[0]!.toolResults)).toContain('value0 = compute');
  });

  it('without it, the same agent overflows the window', async () => {
    const scripted = await start();
    const agent = await agentOn(scripted, []);
    await agent.generate(READING_TASK, { maxSteps: steps + 5 }).catch(() => undefined);
    expect(scripted.requests.some((request) => request.outcome === 'prompt-too-long')).toBe(true);
  });

  it('leaves Mastra memory holding the whole history while the model sees it compacted', async () => {
    const { AgentCompactProcessor } = await import('./index.js');
    const memory = await inMemory();
    const scripted = await start();
    const events: CompactionEvent[] = [];
    const processor = new AgentCompactProcessor({
      contextWindow: window,
      onEvent: (event) => events.push(event),
    });
    const agent = await agentOn(scripted, [processor], memory);
    const thread = { thread: 'reading', resource: 'tester' };
    expect((await agent.generate(READING_TASK, { maxSteps: steps + 5, memory: thread })).text).toBe(answer);
    // A second turn reads the history back from memory, all 40 files whole, and still fits.
    const followUp = 'Which module did you read first?';
    expect((await agent.generate(followUp, { maxSteps: 5, memory: thread })).text).toBe(answer);
    expect(scripted.requests).toHaveLength(steps + 2);
    expect(rejectedRequests(scripted)).toEqual([]);
    expect(events.some((event) => event.type === 'compaction-end')).toBe(true);
    const lastBody = JSON.stringify(scripted.requests.at(-1)!.body);
    expect(lastBody).toContain(followUp);
    const wholeFilesSeen = Array.from({ length: steps }, (_, index) => index).filter((index) =>
      lastBody.includes(JSON.stringify(moduleText(index)).slice(1, -1)),
    );
    expect(wholeFilesSeen.length).toBeLessThan(steps);

    const stored = await storedMessages(memory, 'reading', 'tester');
    const invocations = stored.flatMap((message) => message.content.parts).flatMap(invocationOf);
    expect(invocations.map((invocation) => invocation.state)).toEqual(Array(steps).fill('result'));
    expect(invocations.map((invocation) => invocation.result)).toEqual(
      Array.from({ length: steps }, (_, index) => moduleText(index)),
    );
    const userTexts = stored
      .filter((message) => message.role === 'user')
      .map((message) => message.content.parts.map((part) => (part as { text?: string }).text).join(''));
    expect(userTexts).toEqual([READING_TASK, followUp]);
  });

  it('a stored tool call without its result and an unknown part: the request is valid, memory keeps both', async () => {
    const { AgentCompactProcessor } = await import('./index.js');
    const memory = await inMemory();
    await memory.createThread({ threadId: 'broken', resourceId: 'tester' });
    const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
    const dangling = {
      type: 'tool-invocation',
      toolInvocation: { state: 'call', toolCallId: 'call_1', toolName: 'read_file', args: { path: 'a.ts' } },
    };
    const progress = { type: 'data-progress', data: { percent: 50 } };
    await memory.saveMessages({
      messages: [
        {
          id: 'm1',
          role: 'user',
          createdAt: at(1),
          content: { format: 2, parts: [{ type: 'text', text: 'Read a.ts' }] },
        },
        {
          id: 'm2',
          role: 'assistant',
          createdAt: at(2),
          content: { format: 2, parts: [dangling, progress] },
        },
      ].map((message) => ({ ...message, threadId: 'broken', resourceId: 'tester' })) as never,
    });
    const scripted = await startScriptedModelServer({ contextWindow: window, script: ['Never mind then.'] });
    server = scripted;
    const agent = await agentOn(scripted, [new AgentCompactProcessor({ contextWindow: window })], memory);
    const result = await agent.generate('Go on.', { memory: { thread: 'broken', resource: 'tester' } });
    expect(result.text).toBe('Never mind then.');
    expect(rejectedRequests(scripted)).toEqual([]);
    const stored = await storedMessages(memory, 'broken', 'tester');
    expect(stored.find((message) => message.id === 'm2')?.content.parts).toEqual([dangling, progress]);
  });
});

type StoredPart = { type: string; text?: string; toolInvocation?: { state: string; result?: unknown } };
type StoredMessage = { id: string; role: string; content: { parts: StoredPart[] } };

async function inMemory() {
  const { InMemoryStore } = await import('@mastra/core/storage');
  const { Memory } = await import('@mastra/memory');
  return new Memory({ storage: new InMemoryStore() });
}

/** Every message the memory stored for a thread, however many (recall's default is the last 10). */
async function storedMessages(
  memory: Awaited<ReturnType<typeof inMemory>>,
  threadId: string,
  resourceId: string,
): Promise<StoredMessage[]> {
  await memory.settled();
  const { messages } = await memory.recall({
    threadId,
    resourceId,
    perPage: false,
    threadConfig: { lastMessages: 10_000 },
  });
  return messages as unknown as StoredMessage[];
}

const invocationOf = (part: StoredPart) => (part.toolInvocation ? [part.toolInvocation] : []);
