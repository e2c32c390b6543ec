import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { createCompactor } from '../core/compactor.js';
import { validateMessages } from '../core/conversation/validate.js';
import type { Message, ToolResultBlock } from '../core/model/messages.js';
import { createAgentLoop } from './agent-loop.js';
import type { AgentStatusEvent } from './agent-status.js';
import { type ChatModel, type ChatRequest, ModelCallError } from './chat-model.js';
import type { TranscriptEntry } from './session-store.js';
import { createToolRunner } from './tool-runner.js';

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'agent-loop-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

type Turn = (request: ChatRequest, signal: AbortSignal | undefined) => Message | Promise<Message>;

/** A ChatModel answering from a list of turns, recording each request. */
function fakeModel(turns: Turn[]): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    specificationVersion: 'v1',
    provider: 'fake',
    modelId: 'fake-1',
    requests,
    async generate(request, { signal } = {}) {
      requests.push(structuredClone({ ...request, messages: [...request.messages] }));
      const turn = turns.shift();
      if (!turn) throw new Error('fake model: no more turns');
      const message = await turn(request, signal);
      const toolUse =
        typeof message.content !== 'string' && message.content.some((block) => block.type === 'tool_use');
      // No usage: the compactor counts for itself (a made-up usage would mis-anchor it).
      return { message, stopReason: toolUse ? 'tool-use' : 'end-turn' };
    },
  };
}

const toolCall =
  (id: string, name: string, input: unknown): Turn =>
  () => ({
    role: 'assistant',
    content: [{ type: 'tool_use', id, name, input }],
  });
const answer =
  (text: string): Turn =>
  () => ({ role: 'assistant', content: [{ type: 'text', text }] });

function setUp(turns: Turn[], options: { messages?: Message[] } = {}) {
  const model = fakeModel(turns);
  const archive = createMemoryArchiveStore();
  const compactor = createCompactor({ archive, sessionId: 's', contextWindow: 200_000 });
  const transcript: TranscriptEntry[] = [];
  const saved: Message[][] = [];
  const events: AgentStatusEvent[] = [];
  const agent = createAgentLoop({
    model,
    compactor,
    tools: createToolRunner({ workspace, archive, sessionId: 's' }),
    system: 'You are a test agent.',
    contextWindow: 200_000,
    ...(options.messages ? { messages: options.messages } : {}),
    recorder: {
      appendTranscript: async (entries) => void transcript.push(...entries),
      saveContext: async (messages) => void saved.push([...messages]),
    },
    onStatus: (event) => events.push(event),
  });
  return { model, agent, transcript, saved, events, compactor };
}

describe('createAgentLoop', () => {
  it('runs tools until the model answers, and the results reach the model', async () => {
    await writeFile(path.join(workspace, 'notes.txt'), 'the answer is 42');
    const { model, agent, transcript, events } = setUp([
      toolCall('toolu_1', 'read_file', { path: 'notes.txt' }),
      answer('It says 42.'),
    ]);
    const result = await agent.send('What do the notes say?');
    expect(result).toEqual({ outcome: 'answered', text: 'It says 42.', steps: 2 });
    const lastRequest = model.requests[1]!;
    const results = lastRequest.messages.at(-1)!.content as ToolResultBlock[];
    expect(results).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'the answer is 42' }]);
    expect(transcript.filter((entry) => entry.type === 'message')).toHaveLength(4);
    expect(validateMessages(agent.messages)).toEqual([]);
    expect(events.map((event) => event.type)).toEqual([
      'model-response',
      'tool-call',
      'tool-result',
      'model-response',
      'assistant-text',
    ]);
  });

  it('forces a hard compaction with the focus after the model calls compact', async () => {
    await writeFile(path.join(workspace, 'big.txt'), 'a fairly long line of text\n'.repeat(2000));
    const { agent, transcript, events, model } = setUp([
      toolCall('toolu_1', 'read_file', { path: 'big.txt' }),
      toolCall('toolu_2', 'compact', { focus: 'the next step' }),
      answer('Done.'),
    ]);
    await agent.send('Read big.txt, then tidy your context.');
    expect(model.requests).toHaveLength(3);
    expect(JSON.stringify(model.requests[2]!.messages)).toContain('<context_summary');
    expect(JSON.stringify(model.requests[2]!.messages)).not.toContain(
      'a fairly long line of text\\na fairly',
    );
    const compaction = transcript.find((entry) => entry.type === 'compaction');
    expect(compaction).toMatchObject({ layer: 'hard' });
    expect(events.some((event) => event.type === 'compaction-end' && event.layer === 'hard')).toBe(true);
    expect(validateMessages(agent.messages)).toEqual([]);
  });

  it('stops on abort during the model call and continues later where it stopped', async () => {
    const controller = new AbortController();
    const { model, agent } = setUp([
      (_request, signal) =>
        new Promise<Message>((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(new ModelCallError('aborted', 'aborted')));
          setTimeout(() => controller.abort(), 10);
        }),
      answer('Back again.'),
    ]);
    const first = await agent.send('Start.', { signal: controller.signal });
    expect(first.outcome).toBe('interrupted');
    expect(agent.messages.at(-1)).toEqual({ role: 'user', content: 'Start.' });
    const second = await agent.send(undefined);
    expect(second).toMatchObject({ outcome: 'answered', text: 'Back again.' });
    expect(model.requests[1]!.messages).toEqual([{ role: 'user', content: 'Start.' }]);
  });

  it('answers every tool call when aborted while tools run', async () => {
    const controller = new AbortController();
    const { agent } = setUp([
      () => ({
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'sleep 30' } },
          { type: 'tool_use', id: 'toolu_2', name: 'bash', input: { command: 'echo never' } },
        ],
      }),
    ]);
    setTimeout(() => controller.abort(), 200);
    const result = await agent.send('Sleep.', { signal: controller.signal });
    expect(result.outcome).toBe('interrupted');
    const results = agent.messages.at(-1)!.content as ToolResultBlock[];
    expect(results.map((block) => [block.tool_use_id, block.is_error])).toEqual([
      ['toolu_1', true],
      ['toolu_2', true],
    ]);
    expect(results[1]!.content).toMatch(/not run/);
    expect(validateMessages(agent.messages)).toEqual([]);
  });

  it('closes tool calls a crashed session left open before continuing', async () => {
    const { agent, model } = setUp([answer('Recovered.')], {
      messages: [
        { role: 'user', content: 'Go.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_9', name: 'bash', input: { command: 'ls' } }],
        },
      ],
    });
    await agent.send(undefined);
    const sent = model.requests[0]!.messages;
    expect(sent.at(-1)).toMatchObject({
      role: 'user',
      content: [{ tool_use_id: 'toolu_9', is_error: true }],
    });
  });

  it('joins new user text to pending tool results instead of sending two user messages', async () => {
    const { agent, model } = setUp([answer('Ok.')], {
      messages: [
        { role: 'user', content: 'Go.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] },
      ],
    });
    await agent.send('Also check b.txt.');
    const last = model.requests[0]!.messages.at(-1)!;
    expect(last).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' },
        { type: 'text', text: 'Also check b.txt.' },
      ],
    });
  });

  it('keeps an empty answer as a short note so the history stays valid', async () => {
    const { agent } = setUp([() => ({ role: 'assistant', content: [] })]);
    await agent.send('Say nothing.');
    expect(agent.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: '(no answer)' }],
    });
  });

  it('stops after maxSteps', async () => {
    const turns = Array.from({ length: 5 }, (_, index) =>
      toolCall(`toolu_${index}`, 'bash', { command: 'true' }),
    );
    const model = fakeModel(turns);
    const archive = createMemoryArchiveStore();
    const agent = createAgentLoop({
      model,
      compactor: createCompactor({ archive }),
      tools: createToolRunner({ workspace, archive, sessionId: 's' }),
      system: 'test',
      contextWindow: 1000,
      maxSteps: 3,
    });
    expect(await agent.send('Loop.')).toMatchObject({ outcome: 'max-steps', steps: 3 });
    expect(model.requests).toHaveLength(3);
  });
});
