import { Agent, MemorySession, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai-v7';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemorySessionStateStore } from '../core/archive/memory-session-state-store.js';
import { createOpenAISummaryModel } from '../openai/index.js';
import { READ_FILE_PARAMETERS } from '../testing/_reading-task.js';
import { type ScriptedModelServer, type ScriptStep, startScriptedModelServer } from '../testing/index.js';
import { agentCompactFilter } from './index.js';

setTracingDisabled(true);

// A triage agent looks up three tickets and hands off to a coder (other instructions, other
// tools), which reads ten files; two runs on one session, with the filter on.

const fileText = (path: string) =>
  `// ${path}\n${`export const value = compute(input, options, '${path}');\n`.repeat(60)}`;
const readFile = tool({
  name: 'read_file',
  description: 'Read a file',
  parameters: READ_FILE_PARAMETERS,
  strict: true,
  execute: async (input) => fileText((input as { path: string }).path),
});
const lookupTicket = tool({
  name: 'lookup_ticket',
  description: 'Look up a ticket',
  parameters: READ_FILE_PARAMETERS,
  strict: true,
  execute: async (input) => `Ticket ${(input as { path: string }).path}: ${'the build fails. '.repeat(150)}`,
});

type Item = { type?: string; name?: string; call_id?: string; output?: unknown };

/** Each agent's next step, read off the newest item (its turn's start may be summarized away). */
function modelStep(body: { instructions?: string; input: Item[]; tools?: unknown }): ScriptStep {
  if (!body.tools) return '## Task\nFix the build.\n## Done so far\nLooked up tickets, read modules.';
  const last = body.input.at(-1)!;
  const output = typeof last.output === 'string' ? last.output : JSON.stringify(last.output ?? '');
  const call = (name: string, path?: string): ScriptStep => ({
    type: 'tool-calls',
    calls: [{ name, input: path === undefined ? {} : { path } }],
  });
  if (body.instructions === 'You triage tickets.') {
    const next = Number(/Ticket T-(\d+)/.exec(output)?.[1] ?? -1) + 1;
    return next < 3 ? call('lookup_ticket', `T-${next}`) : call('transfer_to_coder');
  }
  const next = Number(/src\/module-(\d+)/.exec(output)?.[1] ?? -1) + 1;
  return next < 10 ? call('read_file', `src/module-${next}.ts`) : 'Fixed the build.';
}

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('agentCompactFilter with handoffs and a session', () => {
  // 6,000: the handoff's request is under mid; 2,250: a hard compaction falls on it.
  it.each([6_000, 2_250])(
    'keeps one conversation across a handoff and across runs on a session, every call paired (hard at %i)',
    async (hard) => {
      const scripted = await startScriptedModelServer({
        script: (request) => modelStep(request.body as never),
      });
      server = scripted;
      const model = new OpenAIResponsesModel(
        new OpenAI({ baseURL: scripted.openaiBaseURL, apiKey: 'test-key', maxRetries: 0 }) as never,
        'gpt-test',
      );
      const coder = new Agent({ name: 'coder', instructions: 'You fix code.', model, tools: [readFile] });
      const triage = new Agent({
        name: 'triage',
        instructions: 'You triage tickets.',
        model,
        tools: [lookupTicket],
        handoffs: [coder],
      });
      const store = createMemorySessionStateStore();
      const loaded = new Set<string>();
      const filter = agentCompactFilter({
        thresholds: { mid: hard * 0.6, hard },
        summarizer: createOpenAISummaryModel({
          model: 'summarizer',
          apiKey: 'k',
          baseURL: scripted.openaiBaseURL,
        }),
        stateStore: {
          ...store,
          load: (id) => {
            loaded.add(id);
            return store.load(id);
          },
        },
      });
      const session = new MemorySession();
      for (const batch of [0, 1]) {
        const result = await run(triage, `Fix ticket batch ${batch}.`, {
          maxTurns: 40,
          callModelInputFilter: filter,
          session,
        });
        expect(result.finalOutput).toBe('Fixed the build.');
        expect(result.lastAgent?.name).toBe('coder');
      }
      // The server refuses a call without its output (and an output without its call).
      expect(
        scripted.requests.filter((request) => request.outcome !== 'tool-calls' && request.outcome !== 'text'),
      ).toEqual([]);
      // Instructions and tools change at the handoff, and the session saves the calls without their
      // ids; the conversation, and its compactor, stay one.
      expect(loaded.size).toBe(1);
      const summaries = scripted.requests.filter((request) => !request.body.tools);
      expect(summaries.length).toBeGreaterThan(0);
      if (hard === 6_000) {
        // The coder's first request holds the transfer call and its output, as the SDK wrote them.
        const first = scripted.requests.find(
          (request) => (request.body as { instructions?: string }).instructions === 'You fix code.',
        )!;
        const input = (first.body as { input: Item[] }).input;
        const transfer = input.find(
          (item) => item.type === 'function_call' && item.name === 'transfer_to_coder',
        )!;
        expect(input.filter((item) => item.call_id === transfer.call_id).map((item) => item.type)).toEqual([
          'function_call',
          'function_call_output',
        ]);
        // No summary between the triage's last request and the coder's first: none at the handoff.
        expect(scripted.requests[first.index - 1]!.body.tools).toBeDefined();
        // The second run goes on from the first run's compacted result: no summary before its first
        // request (read whole, the session's history is over hard and was summarized again).
        const second = scripted.requests.find((request) =>
          JSON.stringify(request.body).includes('batch 1.'),
        )!;
        expect(scripted.requests[second.index - 1]!.body.tools).toBeDefined();
      }
    },
  );
});
