import {
  Agent,
  type AgentInputItem,
  MemorySession,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  tool,
} from '@openai/agents';
import OpenAI from 'openai-v7';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompactionEvent } from '../core/events.js';
import { READ_FILE_PARAMETERS } from '../testing/_reading-task.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';
import { AgentCompactSession, agentCompactFilter } from './index.js';

setTracingDisabled(true);

const steps = 40;
const window = 32_000;
/** A file of about 1,200 tokens: 40 of them overflow a 32k window several times. */
/** Lines per file read; the session test reads bigger files. */
let linesPerFile = 90;
const fileText = (index: number, lines = linesPerFile) =>
  `// src/module-${index}.ts\n${`export const value${index} = compute(input, options, ${index});\n`.repeat(lines)}`;

/** Reads a file 40 times, then answers; every request must pass the server's provider rules and window. */
async function scriptedServer() {
  return startScriptedModelServer({
    contextWindow: window,
    script: ({ index }) =>
      index < steps
        ? { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: `src/module-${index}.ts` } }] }
        : 'All 40 modules read; value39 is computed from input.',
  });
}

const readFile = tool({
  name: 'read_file',
  description: 'Read a file of the workspace',
  parameters: READ_FILE_PARAMETERS,
  strict: true,
  execute: async (input) => {
    const index = Number(/(\d+)/.exec(JSON.stringify(input))![1]);
    return fileText(index);
  },
});

function agentOn(server: ScriptedModelServer) {
  const client = new OpenAI({ baseURL: server.openaiBaseURL, apiKey: 'test-key', maxRetries: 0 });
  return new Agent({
    name: 'reader',
    instructions: 'You read files and report on them.',
    model: new OpenAIResponsesModel(client as never, 'gpt-test'),
    tools: [readFile],
  });
}

function expectEveryRequestAccepted(server: ScriptedModelServer) {
  expect(server.requests.length).toBe(steps + 1);
  expect(
    server.requests.filter((request) => request.outcome !== 'tool-calls' && request.outcome !== 'text'),
  ).toEqual([]);
  expect(Math.max(...server.requests.map((request) => request.inputTokens))).toBeLessThan(window);
}

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  linesPerFile = 90;
});

describe('agentCompactFilter', () => {
  it('runs a 40-step agent on a 32k window with every request accepted, compacting at micro', async () => {
    server = await scriptedServer();
    const events: CompactionEvent[] = [];
    const filter = agentCompactFilter({ contextWindow: window, onEvent: (event) => events.push(event) });
    const result = await run(agentOn(server), 'Read src/module-0.ts to src/module-39.ts.', {
      maxTurns: steps + 5,
      callModelInputFilter: filter,
    });
    expect(result.finalOutput).toBe('All 40 modules read; value39 is computed from input.');
    expectEveryRequestAccepted(server);
    const layers = new Set(events.flatMap((event) => (event.type === 'compaction-end' ? [event.layer] : [])));
    expect(layers.has('micro')).toBe(true);
    // The run's own items stay whole: every tool output is there in full.
    const outputs = result.history.filter((item) => item.type === 'function_call_result');
    expect(outputs).toHaveLength(steps);
    expect(JSON.stringify(outputs.at(0))).toContain('value0 = compute');
    // Placeholders name no archive id: the agent has no `recall` tool.
    const lastRequest = JSON.stringify(server.requests.at(-1)?.body);
    expect(lastRequest).toContain('[Previous: used read_file');
    expect(lastRequest).not.toMatch(/recall r\d+/);
  });

  it.each([
    ['offered, recall unset', true, undefined, true],
    ['offered, recall: false', true, false, false],
    ['not offered, recall: true', false, true, false],
    ['not offered, recall unset', false, undefined, false],
  ])(
    'names archive ids in placeholders only when the agent offers recall (%s)',
    async (_name, offered, recall, named) => {
      const filter = agentCompactFilter({
        contextWindow: window,
        ...(recall === undefined ? {} : { recall }),
      });
      const agent = new Agent({ name: 'reader', tools: offered ? [readFile, recallTool] : [readFile] });
      const out = await filter({
        modelData: { input: readingItems(), instructions: 'Read.' },
        agent: agent as never,
        context: undefined,
      });
      const text = JSON.stringify(out.input);
      expect(text).toContain('[Previous: used read_file');
      expect(/recall r\d+/.test(text)).toBe(named);
    },
  );

  it('keeps system and developer messages of the input, first, in every request', async () => {
    server = await scriptedServer();
    const filter = agentCompactFilter({ contextWindow: window });
    const input: AgentInputItem[] = [
      { role: 'system', content: 'Quote every file name in backticks.' },
      { role: 'user', content: 'Read src/module-0.ts to src/module-39.ts.' },
    ];
    await run(agentOn(server), input, { maxTurns: steps + 5, callModelInputFilter: filter });
    expectEveryRequestAccepted(server);
    const carrying = server.requests.filter((request) =>
      JSON.stringify(request.body).includes('Quote every file name in backticks.'),
    );
    expect(carrying).toHaveLength(server.requests.length);
  });

  it('without it, the same agent overflows the window', async () => {
    server = await scriptedServer();
    await expect(
      run(agentOn(server), 'Read src/module-0.ts to src/module-39.ts.', { maxTurns: steps + 5 }),
    ).rejects.toThrow();
    expect(server.requests.some((request) => request.outcome === 'prompt-too-long')).toBe(true);
  });

  it('counts a screenshot as the image it is, not as its base64 text', async () => {
    // 8 screenshots of 30 kB: a few thousand tokens as images, ~84,000 as JSON text.
    const image = `data:image/png;base64,${Buffer.alloc(30_000, 7).toString('base64')}`;
    server = await startScriptedModelServer({
      script: ({ index }) =>
        index < 8
          ? { type: 'tool-calls', calls: [{ name: 'screenshot', input: {} }] }
          : 'Eight screens seen.',
    });
    const screenshot = tool({
      name: 'screenshot',
      description: 'Take a screenshot',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
      strict: true,
      execute: async () => ({ type: 'image' as const, image }),
    });
    const events: CompactionEvent[] = [];
    const filter = agentCompactFilter({ contextWindow: 128_000, onEvent: (event) => events.push(event) });
    const agent = agentOn(server).clone({ tools: [screenshot] });
    const result = await run(agent, 'Take eight screenshots.', {
      maxTurns: 12,
      callModelInputFilter: filter,
    });
    expect(result.finalOutput).toBe('Eight screens seen.');
    expect(events).toEqual([]);
    // The last request carried all eight images, as the SDK wrote them.
    expect(JSON.stringify(server.requests.at(-1)?.body).split('"input_image"')).toHaveLength(9);
  });

  it('masks older screenshots as tool results, keeping the latest as the SDK wrote it', async () => {
    const image = { type: 'image', image: { data: 'iVBORw0KGgo'.repeat(3_000), mediaType: 'image/png' } };
    const input: Record<string, unknown>[] = [{ role: 'user', content: 'Watch the screen.' }];
    for (let index = 0; index < 20; index++) {
      input.push({ type: 'function_call', callId: `c${index}`, name: 'screenshot', arguments: '{}' });
      input.push({
        type: 'function_call_result',
        callId: `c${index}`,
        name: 'screenshot',
        status: 'completed',
        output: image,
      });
    }
    const events: CompactionEvent[] = [];
    const filter = agentCompactFilter({ contextWindow: 40_000, onEvent: (event) => events.push(event) });
    const out = await filter({
      modelData: { input: input as never },
      agent: {} as never,
      context: undefined,
    });
    expect(events.some((event) => event.type === 'compaction-end' && event.layer !== 'hard')).toBe(true);
    expect(out.input.at(-1)).toBe(input.at(-1));
    const masked = out.input.filter(
      (item) => item.type === 'function_call_result' && !input.includes(item as never),
    );
    expect(masked.length).toBeGreaterThan(0);
    for (const item of masked)
      expect(item).toMatchObject({ output: { type: 'text', text: expect.stringContaining('screenshot') } });
  });

  it('leaves a developer message added mid-run where it stood, compacted or not', async () => {
    const reads = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, offset) => {
        const index = from + offset;
        return [
          {
            type: 'function_call',
            callId: `c${index}`,
            name: 'read_file',
            arguments: `{"path":"m${index}"}`,
            status: 'completed',
          },
          {
            type: 'function_call_result',
            callId: `c${index}`,
            name: 'read_file',
            status: 'completed',
            output: { type: 'text', text: fileText(index, 40) },
          },
        ];
      }).flat();
    const reminder = { role: 'developer', content: 'Summarize what you read so far before reading on.' };
    const input = [
      { role: 'system', content: 'Quote every file name in backticks.' },
      { role: 'user', content: 'Read the modules.' },
      ...reads(0, 6),
      reminder,
      ...reads(6, 8),
    ];
    const call = (compacting: boolean) =>
      agentCompactFilter({
        contextWindow: window,
        ...(compacting ? { thresholds: { mid: 2_000, hard: 24_000 } } : {}),
      })({
        modelData: { input: input as never, instructions: 'Be brief.' },
        agent: {} as never,
        context: undefined,
      });
    for (const compacting of [false, true]) {
      const out = (await call(compacting)).input as unknown as Record<string, unknown>[];
      // Compacting, micro cleared the older reads: fewer characters, every item still in its place.
      expect(JSON.stringify(out).length < JSON.stringify(input).length).toBe(compacting);
      expect(out[0]).toMatchObject({ role: 'system' });
      expect(out.indexOf(reminder as never)).toBe(input.indexOf(reminder));
    }
  });

  it('keeps one conversation when the instructions change on every run', async () => {
    // Agents compute what changes (the time, retrieved context) into their instructions.
    const threeCalls = async (instructionsOf: (call: number) => string) => {
      const events: CompactionEvent[] = [];
      const filter = agentCompactFilter({
        thresholds: { mid: 3_000, hard: 5_000 },
        onEvent: (event) => events.push(event),
      });
      let out: unknown;
      for (let call = 0; call < 3; call++) {
        const input = readingItems().slice(0, 1 + 2 * (12 + call));
        out = (
          await filter({
            modelData: { input, instructions: instructionsOf(call) },
            agent: {} as never,
            context: undefined,
          })
        ).input;
      }
      const hardRuns = events.filter(
        (event) => event.type === 'compaction-end' && event.layer === 'hard',
      ).length;
      return { hardRuns, out: JSON.stringify(out) };
    };
    const changing = await threeCalls((call) => `Read. Run ${call}.`);
    const constant = await threeCalls(() => 'Read.');
    expect(constant.hardRuns).toBeGreaterThan(0);
    expect(changing).toEqual(constant);
  });

  it('passes an item type it does not know through whole, with a warning', async () => {
    const warnings: string[] = [];
    const filter = agentCompactFilter({ contextWindow: window, onWarning: (line) => warnings.push(line) });
    const odd = { type: 'hosted_tool_call', name: 'web_search', status: 'completed', providerData: { x: 1 } };
    const input = [{ role: 'user' as const, content: 'Search the web.' }, odd];
    const out = await filter({
      modelData: { input: input as never, instructions: 'Be brief.' },
      agent: {} as never,
      context: undefined,
    });
    expect(out.input[1]).toBe(odd);
    expect(warnings).toEqual([
      'agent-compact: item type "hosted_tool_call" is not converted; it is kept whole',
    ]);
  });
});

describe('AgentCompactSession', () => {
  it('keeps the whole history in the wrapped session while each run sees it compacted', async () => {
    const runs = 20;
    linesPerFile = 180;
    // Each run: one read of a ~2,400-token file, then an answer. 20 runs overflow 32k without compaction.
    server = await startScriptedModelServer({
      contextWindow: window,
      script: ({ index }) =>
        index % 2 === 0
          ? {
              type: 'tool-calls',
              calls: [{ name: 'read_file', input: { path: `src/module-${index / 2}.ts` } }],
            }
          : `Read module ${(index - 1) / 2}.`,
    });
    const inner = new MemorySession();
    const session = new AgentCompactSession(inner, {
      contextWindow: window,
      instructions: 'You read files and report on them.',
    });
    const agent = agentOn(server);
    for (let turn = 0; turn < runs; turn++) {
      const result = await run(agent, `Read src/module-${turn}.ts.`, { session });
      expect(result.finalOutput).toBe(`Read module ${turn}.`);
    }
    expect(
      server.requests.filter((request) => request.outcome !== 'tool-calls' && request.outcome !== 'text'),
    ).toEqual([]);
    const whole = await inner.getItems();
    expect(whole.filter((item) => item.type === 'function_call_result')).toHaveLength(runs);
    expect(whole.filter((item) => 'role' in item && item.role === 'user')).toHaveLength(runs);
    const seen = await session.getItems();
    expect(JSON.stringify(seen).length).toBeLessThan(JSON.stringify(whole).length / 2);
    expect((await session.compactor())?.sessionId).toBe(await inner.getSessionId());
  });

  it.each([
    ['recall unset', undefined, false],
    ['recall: true', true, true],
    ['recall: false', false, false],
  ])('is not told the tools: names archive ids only with recall: true (%s)', async (_name, recall, named) => {
    const inner = new MemorySession();
    await inner.addItems(readingItems());
    const session = new AgentCompactSession(inner, {
      contextWindow: window,
      ...(recall === undefined ? {} : { recall }),
    });
    const text = JSON.stringify(await session.getItems());
    expect(text).toContain('[Previous: used read_file');
    expect(/recall r\d+/.test(text)).toBe(named);
  });
});

/** A `recall` tool, as an agent that can bring archived content back offers it. */
const recallTool = tool({
  name: 'recall',
  description: 'Return the original content of an item a compaction placeholder names.',
  parameters: {
    type: 'object',
    properties: { id: { type: 'string' } },
    required: ['id'],
    additionalProperties: false,
  },
  strict: true,
  execute: async () => '',
});

/** A user turn and 40 file reads, past the 32k window: older reads become placeholders. */
function readingItems(): AgentInputItem[] {
  const items: AgentInputItem[] = [{ role: 'user', content: 'Read the modules.' }];
  for (let index = 0; index < steps; index++) {
    items.push({
      type: 'function_call',
      callId: `c${index}`,
      name: 'read_file',
      arguments: JSON.stringify({ path: `src/module-${index}.ts` }),
    });
    items.push({
      type: 'function_call_result',
      callId: `c${index}`,
      name: 'read_file',
      status: 'completed',
      output: fileText(index),
    });
  }
  return items;
}
