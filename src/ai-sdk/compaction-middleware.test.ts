import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { toAnthropicParams } from '../anthropic/index.js';
import type { CompactionEvent } from '../core/events.js';
import { createOpenAISummaryModel } from '../openai/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/scripted-model-server.js';
import { chatCompletionsModel, usage } from './chat-completions-model.test-utils.js';
import { createCompactionMiddleware } from './compaction-middleware.js';
import {
  leadingSystemCount,
  PromptOrigins,
  systemFromMessages,
  toCanonicalMessages,
} from './prompt-conversion.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function textResult(text: string, inputTokens = 100): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: usage(inputTokens),
    warnings: [],
  };
}

/** A mock answer without usage, so the compactor counts the prompt itself. */
function toolCallResult(id: string, path: string): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: JSON.stringify({ path }) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    },
    warnings: [],
  };
}

const readFile = tool({
  description: 'Reads a file',
  inputSchema: jsonSchema<{ path: string }>({
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  }),
  // Small files, and one big one that pushes the context over the hard threshold at once.
  execute: async ({ path }) =>
    `// ${path}\n${'export const value = compute(input, options);\n'.repeat(path.includes('big') ? 600 : 20)}`,
});

function promptText(prompt: LanguageModelV3Prompt): string {
  return JSON.stringify(prompt);
}

const READING_LOOP_STEPS = 16;

/**
 * A 16-step `generateText` loop reading files (one big) over mid 3,000 / hard 5,000, each step's
 * system prompt from `systemOfStep` if given (`prepareStep`): the result, the prompts the model got
 * and how many hard compactions ran.
 */
async function readingLoop(systemOfStep?: (step: number) => string) {
  const responses = [
    ...Array.from({ length: READING_LOOP_STEPS - 1 }, (_, index) =>
      toolCallResult(`call_${index}`, index === 6 ? 'src/big.ts' : `src/file-${index}.ts`),
    ),
    textResult('All files read.'),
  ];
  const model = new MockLanguageModelV3({ doGenerate: responses });
  const events: CompactionEvent[] = [];
  const middleware = createCompactionMiddleware({
    thresholds: { mid: 3000, hard: 5000 },
    micro: { cacheAware: false, keepTurns: 2, minTokens: 50 },
    onEvent: (event) => events.push(event),
  });
  const result = await generateText({
    model: wrapLanguageModel({ model, middleware }),
    system: 'You are a coding agent.',
    prompt: 'Read every file in src/ and tell me what they export.',
    tools: { read_file: readFile },
    stopWhen: stepCountIs(READING_LOOP_STEPS),
    ...(systemOfStep ? { prepareStep: ({ stepNumber }) => ({ system: systemOfStep(stepNumber) }) } : {}),
  });
  const prompts = model.doGenerateCalls.map((call) => call.prompt);
  const hardRuns = events.filter((event) => event.type === 'compaction-end' && event.layer === 'hard').length;
  return { result, prompts, hardRuns };
}

describe('createCompactionMiddleware with the AI SDK mock model', () => {
  it('passes a prompt below the thresholds through untouched, part for part', async () => {
    const image = new Uint8Array([137, 80, 78, 71]);
    const prompt: LanguageModelV3Prompt = [
      { role: 'system', content: 'You are a coding agent.' },
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: 'What is in this picture?',
            providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
          },
          { type: 'file', data: image, mediaType: 'image/png' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Look first.', providerOptions: { anthropic: { signature: 'sig' } } },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'read_file', input: { path: 'a.ts' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'read_file',
            output: { type: 'json', value: { lines: 3 } },
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Go on.' }] },
    ];
    const model = new MockLanguageModelV3({ doGenerate: textResult('done') });
    const middleware = createCompactionMiddleware({ conversationId: () => 'chat-1' });
    const transformed = await middleware.transformParams?.({ type: 'generate', params: { prompt }, model });
    for (const [index, message] of (transformed?.prompt ?? []).entries()) expect(message).toBe(prompt[index]);
    expect(transformed?.prompt).toHaveLength(prompt.length);
    expect(middleware.compactorFor('chat-1')).toBeDefined();
    // Through generateText too: the model receives what the AI SDK built, unchanged.
    await generateText({
      model: wrapLanguageModel({ model, middleware }),
      prompt: [{ role: 'user', content: 'hi' }],
    });
    expect(model.doGenerateCalls[0]?.prompt).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
  });

  it('compacts a generateText tool loop, summarizing once and continuing from the compacted prompt', async () => {
    const { result, prompts, hardRuns } = await readingLoop();
    expect(result.text).toBe('All files read.');
    expect(prompts).toHaveLength(READING_LOOP_STEPS);
    const last = promptText(prompts.at(-1) ?? []);
    expect(last).toContain('<context_summary');
    expect(last).toContain('Read every file in src/');
    // The full history the AI SDK holds is far larger than what reached the model.
    const fullHistory = JSON.stringify(result.response.messages).length;
    expect(last.length).toBeLessThan(fullHistory / 2);
    expect(hardRuns).toBe(1);
    // Every tool call that reached the model has its result right after it.
    for (const prompt of prompts) {
      prompt.forEach((message, index) => {
        if (message.role !== 'assistant') return;
        const calls = message.content
          .filter((part) => part.type === 'tool-call')
          .map((part) => part.toolCallId);
        if (calls.length === 0) return;
        const next = prompt[index + 1];
        expect(next?.role).toBe('tool');
        const answered =
          next?.role === 'tool'
            ? next.content.map((part) => (part.type === 'tool-result' ? part.toolCallId : ''))
            : [];
        expect(answered).toEqual(calls);
      });
    }
  });

  it('a system prompt that changes on every step keeps its conversation: one summary, not one a step', async () => {
    // Apps put what changes (the time, retrieved context) in the system prompt of each step.
    const { hardRuns } = await readingLoop((step) => `You are a coding agent. Step ${step}.`);
    expect(hardRuns).toBe(1);
  });

  it("anchors the next call's count to the usage a streamed answer reported", async () => {
    const events: CompactionEvent[] = [];
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'ok' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(90_000) },
          ],
          chunkDelayInMs: null,
          initialDelayInMs: null,
        }),
      }),
    });
    const middleware = createCompactionMiddleware({
      conversationId: () => 'streamed',
      hard: { retryDelayMs: 1 },
      onEvent: (event) => events.push(event),
    });
    const wrapped = wrapLanguageModel({ model, middleware });
    const first = streamText({ model: wrapped, messages: [{ role: 'user', content: 'hello' }] });
    await first.consumeStream();
    expect(events).toEqual([]);
    const second = streamText({
      model: wrapped,
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'and now?' },
      ],
    });
    await second.consumeStream();
    // Anchored to the reported 90k, none of which is in the messages: a summary could not help,
    // and the learning breaker says so instead of summarizing.
    const [event] = events;
    expect(event).toMatchObject({ type: 'circuit-breaker-open', reason: 'fixed-overhead' });
    expect(event?.type === 'circuit-breaker-open' && event.tokensBefore).toBeGreaterThanOrEqual(90_000);
  });

  it('without a conversation id, never gives one chat the compactor of another that opens alike', async () => {
    const middleware = createCompactionMiddleware({
      thresholds: { mid: 3000, hard: 5000 },
      micro: { cacheAware: false, keepTurns: 2, minTokens: 50 },
    });
    // Two users' tool loops open with the same system prompt and task, then read their own files.
    const runFor = async (user: string) => {
      const steps = 16;
      const model = new MockLanguageModelV3({
        doGenerate: [
          ...Array.from({ length: steps - 1 }, (_, index) =>
            toolCallResult(`call_${index}`, index === 6 ? 'src/big.ts' : `src/${user}-${index}.ts`),
          ),
          textResult('All files read.'),
        ],
      });
      await generateText({
        model: wrapLanguageModel({ model, middleware }),
        system: 'You are a coding agent.',
        prompt: 'Read every file in src/ and tell me what they export.',
        tools: { read_file: readFile },
        stopWhen: stepCountIs(steps),
      });
      return model.doGenerateCalls.map((call) => promptText(call.prompt));
    };
    const alice = await runFor('alice');
    const bob = await runFor('bob');
    expect(alice.at(-1)).toContain('<context_summary');
    expect(bob.at(-1)).toContain('<context_summary');
    expect(bob.at(-1)).toContain('src/bob-');
    expect(bob.filter((prompt) => prompt.includes('alice'))).toEqual([]);
  });

  it('keeps one compactor per conversation', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [textResult('a'), textResult('b')] });
    const middleware = createCompactionMiddleware({
      conversationId: (params) => String(params.headers?.['x-chat']),
    });
    const wrapped = wrapLanguageModel({ model, middleware });
    await generateText({ model: wrapped, prompt: 'one', headers: { 'x-chat': 'first' } });
    await generateText({ model: wrapped, prompt: 'two', headers: { 'x-chat': 'second' } });
    const first = middleware.compactorFor('first');
    const second = middleware.compactorFor('second');
    expect(first?.sessionId).toBe('first');
    expect(second?.sessionId).toBe('second');
    expect(first).not.toBe(second);
  });
});

describe('createCompactionMiddleware against the scripted model server', () => {
  it('runs a generateText tool loop whose every request the server accepts, with a model summarizer', async () => {
    const steps = 14;
    let agentCalls = 0;
    server = await startScriptedModelServer({
      script: (request) => {
        // Summary requests carry no tools; agent requests do.
        if (!request.body.tools)
          return '## Task\nRead the files.\n## Done so far\nRead several files.\n## Next steps\nRead the rest.';
        agentCalls += 1;
        if (agentCalls >= steps) return 'Finished reading.';
        const path = agentCalls === 6 ? 'src/big.ts' : `src/file-${agentCalls}.ts`;
        return { type: 'tool-calls', calls: [{ name: 'read_file', input: { path } }] };
      },
    });
    const summarizer = createOpenAISummaryModel({
      model: 'small-summarizer',
      apiKey: 'test',
      baseURL: server.openaiBaseURL,
    });
    const events: CompactionEvent[] = [];
    const middleware = createCompactionMiddleware({
      thresholds: { mid: 3000, hard: 5000 },
      micro: { cacheAware: false, keepTurns: 2, minTokens: 50 },
      summarizer,
      onEvent: (event) => events.push(event),
    });
    const result = await generateText({
      model: wrapLanguageModel({ model: chatCompletionsModel(server.openaiBaseURL), middleware }),
      system: 'You are a coding agent.',
      prompt: 'Read every file in src/.',
      tools: { read_file: readFile },
      stopWhen: stepCountIs(steps),
    });
    expect(result.text).toBe('Finished reading.');
    const outcomes = server.requests.map((request) => request.outcome);
    expect(outcomes).not.toContain('invalid-request');
    const summaryRequests = server.requests.filter((request) => !request.body.tools);
    expect(summaryRequests.length).toBeGreaterThan(0);
    expect(summaryRequests[0]?.body.model).toBe('small-summarizer');
    expect(events.some((event) => event.type === 'fallback-used')).toBe(false);
    const agentRequests = server.requests.filter((request) => request.body.tools);
    const lastAgentRequest = JSON.stringify(agentRequests.at(-1)?.body);
    expect(lastAgentRequest).toContain('Read several files.');
    const largest = Math.max(...agentRequests.map((request) => request.inputTokens));
    expect(largest).toBeLessThan(5000 + 1500);
    // Summarized once, then continued from the summary: not a new summary on every step.
    expect(summaryRequests).toHaveLength(1);
  });
});

describe('createCompactionMiddleware when the model call fails', () => {
  it('a generateText retry after a 429 sends the compacted prompt it failed with, and no second summary', async () => {
    const steps = 10;
    let agentCalls = 0;
    let summaries = 0;
    server = await startScriptedModelServer({
      script: (request) => {
        if (!request.body.tools) {
          summaries += 1;
          return '## Task\nRead the files.\n## Done so far\nRead several files.';
        }
        // The first call after the summary is rate-limited once; the SDK's retry goes through.
        if (summaries === 1 && !server!.requests.some((seen) => seen.outcome === 'rate-limit'))
          return { type: 'rate-limit', retryAfterSeconds: 0 };
        agentCalls += 1;
        if (agentCalls >= steps) return 'Finished reading.';
        const path = agentCalls === 6 ? 'src/big.ts' : `src/file-${agentCalls}.ts`;
        return { type: 'tool-calls', calls: [{ name: 'read_file', input: { path } }] };
      },
    });
    const middleware = createCompactionMiddleware({
      thresholds: { mid: 3000, hard: 5000 },
      micro: { cacheAware: false, keepTurns: 2, minTokens: 50 },
      summarizer: createOpenAISummaryModel({ model: 'small', apiKey: 'test', baseURL: server.openaiBaseURL }),
    });
    const result = await generateText({
      model: wrapLanguageModel({ model: chatCompletionsModel(server.openaiBaseURL), middleware }),
      system: 'You are a coding agent.',
      prompt: 'Read every file in src/.',
      tools: { read_file: readFile },
      stopWhen: stepCountIs(steps + 1),
      maxRetries: 2,
    });
    expect(result.text).toBe('Finished reading.');
    const failed = server.requests.findIndex((request) => request.outcome === 'rate-limit');
    expect(failed).toBeGreaterThan(0);
    expect(server.requests[failed + 1]?.body).toEqual(server.requests[failed]?.body);
    expect(JSON.stringify(server.requests[failed]?.body)).toContain('Read several files.');
    expect(summaries).toBe(1);
  });
});

/** A minimal streaming LanguageModelV3 over the official Anthropic SDK (no provider package needed). */
function anthropicStreamingModel(baseURL: string): LanguageModelV3 {
  const client = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 });
  return {
    specificationVersion: 'v3',
    provider: 'scripted-anthropic',
    modelId: 'agent-model',
    supportedUrls: {},
    doGenerate() {
      throw new Error('not used');
    },
    async doStream(options: LanguageModelV3CallOptions) {
      const systemCount = leadingSystemCount(options.prompt);
      const system = systemFromMessages(options.prompt.slice(0, systemCount));
      const canonical = toCanonicalMessages(options.prompt.slice(systemCount), new PromptOrigins());
      const params = toAnthropicParams({ ...(system === undefined ? {} : { system }), messages: canonical });
      const tools = (options.tools ?? []).flatMap((definition) =>
        definition.type === 'function'
          ? [{ name: definition.name, input_schema: definition.inputSchema as Anthropic.Tool.InputSchema }]
          : [],
      );
      const stream = client.messages.stream(
        { model: 'agent-model', max_tokens: 1000, ...params, tools },
        options.abortSignal ? { signal: options.abortSignal } : {},
      );
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          async start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            for await (const event of stream) {
              if (event.type === 'content_block_start' && event.content_block.type === 'text') {
                controller.enqueue({ type: 'text-start', id: String(event.index) });
              } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
                controller.enqueue({ type: 'text-delta', id: String(event.index), delta: event.delta.text });
              }
            }
            const message = await stream.finalMessage();
            message.content.forEach((block, index) => {
              if (block.type === 'text') controller.enqueue({ type: 'text-end', id: String(index) });
              if (block.type === 'tool_use') {
                controller.enqueue({
                  type: 'tool-call',
                  toolCallId: block.id,
                  toolName: block.name,
                  input: JSON.stringify(block.input),
                });
              }
            });
            controller.enqueue({
              type: 'finish',
              finishReason:
                message.stop_reason === 'tool_use'
                  ? { unified: 'tool-calls', raw: 'tool_use' }
                  : { unified: 'stop', raw: message.stop_reason ?? undefined },
              usage: usage(message.usage.input_tokens, message.usage.output_tokens),
            });
            controller.close();
          },
        }),
      };
    },
  };
}

describe('createCompactionMiddleware with streamText and the real Anthropic SDK', () => {
  it('compacts a streamed tool loop, and every streamed request the server receives is valid', async () => {
    const steps = 10;
    let agentCalls = 0;
    server = await startScriptedModelServer({
      script: () => {
        agentCalls += 1;
        if (agentCalls >= steps) return 'Finished reading.';
        return {
          type: 'tool-calls',
          calls: [{ name: 'read_file', input: { path: `src/file-${agentCalls}.ts` } }],
        };
      },
    });
    const events: CompactionEvent[] = [];
    const middleware = createCompactionMiddleware({
      thresholds: { mid: 3000, hard: 5000 },
      micro: { cacheAware: false, keepTurns: 2, minTokens: 50 },
      onEvent: (event) => events.push(event),
    });
    const result = streamText({
      model: wrapLanguageModel({ model: anthropicStreamingModel(server.anthropicBaseURL), middleware }),
      system: 'You are a coding agent.',
      prompt: 'Read every file in src/.',
      tools: { read_file: readFile },
      stopWhen: stepCountIs(steps),
    });
    expect(await result.text).toBe('Finished reading.');
    expect(server.requests).toHaveLength(steps);
    expect(server.requests.every((request) => request.stream && request.outcome !== 'invalid-request')).toBe(
      true,
    );
    expect(events.some((event) => event.type === 'compaction-end' && event.layer === 'micro')).toBe(true);
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('[Previous: used read_file');
  });
});
