import { type AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { createMemorySessionStateStore } from '../core/archive/memory-session-state-store.js';
import { createOpenAISummaryModel } from '../openai/index.js';
import { type ScriptedModelServer, type ScriptStep, startScriptedModelServer } from '../testing/index.js';
import { agentCompactMiddleware } from './index.js';

// Two LangGraph threads on one checkpointer, as a chat app runs them: both open with "hi", then
// each reads six files of its own repository per invocation, on thresholds every invocation
// passes. A restart is a new agent and middleware over the same checkpointer and stores.

const FILES_PER_TURN = 6;
const fileText = (path: string) =>
  `// ${path}\n${`export const value = compute(input, options, '${path}');\n`.repeat(60)}`;
const readFile = tool(async (input: { path: string }) => fileText(input.path), {
  name: 'read_file',
  description: 'Read a file',
  schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
});

type ChatMessage = { role: string; content: unknown };

/** Greets, then reads the files the user asked for one a call, then says it is done. */
function modelStep(body: Record<string, unknown>): ScriptStep {
  // Summary requests carry no tools.
  if (!body.tools) return '## Task\nRead modules.\n## Done so far\nRead some modules.';
  const last = (body.messages as ChatMessage[]).at(-1)!;
  const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
  const read = (path: string): ScriptStep => ({
    type: 'tool-calls',
    calls: [{ name: 'read_file', input: { path } }],
  });
  if (last.role === 'tool') {
    const [, repo, index] = /\/\/ (\w+)\/module-(\d+)\.ts/.exec(text)!;
    const next = Number(index) + 1;
    return next % FILES_PER_TURN === 0
      ? `Read ${repo} up to module ${index}.`
      : read(`${repo}/module-${next}.ts`);
  }
  const asked = /Read six modules of (\w+) from (\d+)/.exec(text);
  return asked ? read(`${asked[1]}/module-${asked[2]}.ts`) : 'Hello. What should I read?';
}

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('agentCompactMiddleware on a LangGraph checkpointer', () => {
  it.each([false, true])(
    'keeps two threads that open alike apart, also when a restarted process resumes them (persist: %s)',
    async (persist) => {
      const scripted = await startScriptedModelServer({ script: (request) => modelStep(request.body) });
      server = scripted;
      const checkpointer = new MemorySaver();
      const stores = { stateStore: createMemorySessionStateStore(), archive: createMemoryArchiveStore() };
      const summarizer = createOpenAISummaryModel({
        model: 'summarizer',
        apiKey: 'test-key',
        baseURL: scripted.openaiBaseURL,
      });
      const newAgent = () =>
        createAgent({
          model: new ChatOpenAI({
            model: 'gpt-test',
            apiKey: 'test-key',
            maxRetries: 0,
            configuration: { baseURL: scripted.openaiBaseURL },
          }),
          tools: [readFile],
          systemPrompt: 'You read files.',
          checkpointer,
          middleware: [
            agentCompactMiddleware({
              thresholds: { mid: 4_000, hard: 7_000 },
              summarizer,
              persist,
              ...stores,
            }),
          ],
        });
      let agent = newAgent();
      const states = new Map<string, BaseMessage[]>();
      const say = async (thread: string, text: string) => {
        const state = await agent.invoke(
          { messages: [new HumanMessage(text)] },
          { configurable: { thread_id: thread }, recursionLimit: 100 },
        );
        states.set(thread, state.messages as BaseMessage[]);
      };
      const turn = (repo: string, turn: number) =>
        say(repo, `Read six modules of ${repo} from ${turn * FILES_PER_TURN}`);
      await say('alpha', 'hi');
      await say('beta', 'hi');
      for (const index of [0, 1, 2]) {
        await turn('alpha', index);
        await turn('beta', index);
      }
      // The restarted process sees beta first: the threads come in the other order.
      agent = newAgent();
      for (const index of [3, 4]) {
        await turn('beta', index);
        await turn('alpha', index);
      }
      expect(
        scripted.requests.filter((request) => request.outcome !== 'tool-calls' && request.outcome !== 'text'),
      ).toEqual([]);
      expect((states.get('alpha')!.at(-1) as AIMessage).content).toBe('Read alpha up to module 29.');
      // No request, to the agent or the summarizer, holds anything of the other thread.
      for (const request of scripted.requests) {
        const body = JSON.stringify(request.body);
        expect(body.includes('alpha') && body.includes('beta')).toBe(false);
      }
      // One summary started from the thread's first file: later ones go on from it, across
      // invocations. Per model call, the compacted view lives in memory only: the restarted
      // process summarizes the whole thread once more; persisted, the checkpoint holds it.
      const summariesFromScratch = (repo: string) =>
        scripted.requests.filter(
          (request) => !request.body.tools && JSON.stringify(request.body).includes(`${repo}/module-0.ts`),
        ).length;
      expect([summariesFromScratch('alpha'), summariesFromScratch('beta')]).toEqual(
        persist ? [1, 1] : [2, 2],
      );
      // Every call in a checkpointed thread has its result.
      for (const messages of states.values()) {
        const calls = messages
          .flatMap((message) => (message as AIMessage).tool_calls ?? [])
          .map((call) => call.id);
        const results = messages.filter((message) => message.type === 'tool');
        expect(results.map((message) => (message as ToolMessage).tool_call_id)).toEqual(calls);
      }
    },
  );
});
