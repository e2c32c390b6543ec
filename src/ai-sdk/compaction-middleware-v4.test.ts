// The middleware under ai 7 (`LanguageModelV4Middleware`), with ai 7's own mock model. The
// package's `ai` devDependency is ai 6; ai 7 and its `@ai-sdk/provider` 4 are installed under the
// aliases `ai-v7` and `@ai-sdk/provider-v4`.
import type { LanguageModelV3CallOptions, LanguageModelV3Middleware } from '@ai-sdk/provider';
import type {
  LanguageModelV3GenerateResult,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Middleware,
  LanguageModelV4Prompt,
} from '@ai-sdk/provider-v4';
import {
  generateText,
  jsonSchema,
  type LanguageModelMiddleware,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai-v7';
import { MockLanguageModelV3, MockLanguageModelV4, simulateReadableStream } from 'ai-v7/test';
import { describe, expect, it } from 'vitest';
import type { CompactionEvent } from '../core/events.js';
import { createCompactionMiddleware } from './compaction-middleware.js';

const usage = (input: number, output = 10): LanguageModelV4GenerateResult['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

function textResult(text: string, inputTokens = 100): LanguageModelV4GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: usage(inputTokens),
    warnings: [],
  };
}

/** A mock answer without usage, so the compactor counts the prompt itself. */
function toolCallResult(id: string, path: string): LanguageModelV4GenerateResult {
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
  execute: async ({ path }) =>
    `// ${path}\n${'export const value = compute(input, options);\n'.repeat(path.includes('big') ? 600 : 20)}`,
});

/** The responses of a tool loop that reads `steps - 1` files (one of them big), then answers. */
function toolLoopResponses(steps: number): LanguageModelV4GenerateResult[] {
  return [
    ...Array.from({ length: steps - 1 }, (_, index) =>
      toolCallResult(`call_${index}`, index === 6 ? 'src/big.ts' : `src/file-${index}.ts`),
    ),
    textResult('All files read.'),
  ];
}

describe('createCompactionMiddleware types', () => {
  it('is a LanguageModelV4Middleware with v4, a LanguageModelV3Middleware by default, and fits both wrapLanguageModels', () => {
    const v4: LanguageModelV4Middleware = createCompactionMiddleware({ specificationVersion: 'v4' });
    const v3: LanguageModelV3Middleware = createCompactionMiddleware();
    // ai 7's own middleware type takes either declaration.
    const either: LanguageModelMiddleware[] = [createCompactionMiddleware(), v4];
    expect(v4.specificationVersion).toBe('v4');
    expect(v3.specificationVersion).toBe('v3');
    expect(either).toHaveLength(2);
  });
});

describe('createCompactionMiddleware with ai 7 and MockLanguageModelV4', () => {
  it('passes a v4 prompt below the thresholds through untouched, part for part', async () => {
    const prompt: LanguageModelV4Prompt = [
      { role: 'system', content: 'You are a coding agent.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          {
            type: 'file',
            data: { type: 'data', data: new Uint8Array([137, 80, 78, 71]) },
            mediaType: 'image/png',
          },
          {
            type: 'file',
            data: { type: 'url', url: new URL('https://example.com/a.png') },
            mediaType: 'image',
          },
          { type: 'file', data: { type: 'text', text: 'notes' }, mediaType: 'text/plain' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Look first.' },
          { type: 'custom', kind: 'acme.marker' },
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
            output: {
              type: 'content',
              value: [
                { type: 'text', text: '3 lines' },
                { type: 'file', data: { type: 'data', data: 'iVBORw==' }, mediaType: 'image/png' },
              ],
            },
          },
        ],
      },
    ];
    const model = new MockLanguageModelV4({ doGenerate: textResult('done') });
    const middleware = createCompactionMiddleware({
      specificationVersion: 'v4',
      conversationId: () => 'chat-1',
    });
    const transformed = await middleware.transformParams({ type: 'generate', params: { prompt }, model });
    expect(transformed.prompt).toHaveLength(prompt.length);
    for (const [index, message] of transformed.prompt.entries()) expect(message).toBe(prompt[index]);
    await generateText({ model: wrapLanguageModel({ model, middleware }), prompt: 'hi' });
    expect(model.doGenerateCalls[0]?.prompt).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
  });

  it('compacts a generateText tool loop, summarizing once, every tool call answered', async () => {
    const steps = 16;
    const model = new MockLanguageModelV4({ doGenerate: toolLoopResponses(steps) });
    const events: CompactionEvent[] = [];
    const middleware = createCompactionMiddleware({
      specificationVersion: 'v4',
      thresholds: { mid: 3000, hard: 5000 },
      micro: { cacheAware: false, keepTurns: 2, minTokens: 50 },
      onEvent: (event) => events.push(event),
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware }),
      system: 'You are a coding agent.',
      prompt: 'Read every file in src/ and tell me what they export.',
      tools: { read_file: readFile },
      stopWhen: stepCountIs(steps),
    });
    expect(result.text).toBe('All files read.');
    const prompts = model.doGenerateCalls.map((call) => call.prompt);
    expect(prompts).toHaveLength(steps);
    const last = JSON.stringify(prompts.at(-1));
    expect(last).toContain('<context_summary');
    // The tool outputs alone come to about 40,000 characters.
    expect(last.length).toBeLessThan(20_000);
    expect(events.filter((event) => event.type === 'compaction-end' && event.layer === 'hard')).toHaveLength(
      1,
    );
    for (const prompt of prompts) {
      prompt.forEach((message, index) => {
        if (message.role !== 'assistant') return;
        const calls = message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []));
        if (calls.length === 0) return;
        const next = prompt[index + 1];
        const answered =
          next?.role === 'tool'
            ? next.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : []))
            : [];
        expect(answered).toEqual(calls);
      });
    }
  });

  it("anchors the next call's count to the usage a streamed answer reported", async () => {
    const events: CompactionEvent[] = [];
    const model = new MockLanguageModelV4({
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
      specificationVersion: 'v4',
      conversationId: () => 'streamed',
      hard: { retryDelayMs: 1 },
      onEvent: (event) => events.push(event),
    });
    const wrapped = wrapLanguageModel({ model, middleware });
    await streamText({ model: wrapped, messages: [{ role: 'user', content: 'hello' }] }).consumeStream();
    expect(events).toEqual([]);
    await streamText({
      model: wrapped,
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'and now?' },
      ],
    }).consumeStream();
    // Anchored to the reported 90k, none of which is in the messages: a summary could not help,
    // and the learning breaker says so instead of summarizing.
    const [event] = events;
    expect(event).toMatchObject({ type: 'circuit-breaker-open', reason: 'fixed-overhead' });
    expect(event?.type === 'circuit-breaker-open' && event.tokensBefore).toBeGreaterThanOrEqual(90_000);
  });

  it("anchors the next call's count to the usage a generated answer reported", async () => {
    const events: CompactionEvent[] = [];
    const model = new MockLanguageModelV4({ doGenerate: [textResult('ok', 90_000), textResult('done')] });
    const middleware = createCompactionMiddleware({
      specificationVersion: 'v4',
      hard: { retryDelayMs: 1 },
      onEvent: (event) => events.push(event),
    });
    const wrapped = wrapLanguageModel({ model, middleware });
    await generateText({ model: wrapped, messages: [{ role: 'user', content: 'hello' }] });
    expect(events).toEqual([]);
    await generateText({
      model: wrapped,
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'and now?' },
      ],
    });
    expect(events[0]).toMatchObject({ type: 'circuit-breaker-open', reason: 'fixed-overhead' });
    expect(events[0]?.type === 'circuit-breaker-open' && events[0].tokensBefore).toBeGreaterThanOrEqual(
      90_000,
    );
  });

  it('keeps one compactor per conversation', async () => {
    const model = new MockLanguageModelV4({ doGenerate: [textResult('a'), textResult('b')] });
    const middleware = createCompactionMiddleware({
      specificationVersion: 'v4',
      conversationId: (params) => String(params.headers?.['x-chat']),
    });
    const wrapped = wrapLanguageModel({ model, middleware });
    await generateText({ model: wrapped, prompt: 'one', headers: { 'x-chat': 'first' } });
    await generateText({ model: wrapped, prompt: 'two', headers: { 'x-chat': 'second' } });
    expect(middleware.compactorFor('first')?.sessionId).toBe('first');
    expect(middleware.compactorFor('second')?.sessionId).toBe('second');
    expect(middleware.compactorFor('first')).not.toBe(middleware.compactorFor('second'));
  });

  it('compacts for a v3 model wrapped by ai 7, with the default v3 declaration', async () => {
    const steps = 12;
    // Text and tool calls only: valid v3 results too.
    const responses = toolLoopResponses(steps) as LanguageModelV3GenerateResult[];
    const model = new MockLanguageModelV3({ doGenerate: responses });
    const middleware = createCompactionMiddleware({
      thresholds: { mid: 3000, hard: 5000 },
      micro: { cacheAware: false, keepTurns: 2, minTokens: 50 },
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware }),
      prompt: 'Read every file in src/.',
      tools: { read_file: readFile },
      stopWhen: stepCountIs(steps),
    });
    expect(result.text).toBe('All files read.');
    expect(JSON.stringify(model.doGenerateCalls.at(-1)?.prompt)).toContain('<context_summary');
  });
});

describe('createCompactionMiddleware conversationId', () => {
  it('takes a function written for either version of the call options', () => {
    const fromV4 = (params: LanguageModelV4CallOptions) => String(params.headers?.['x-chat']);
    const fromV3 = (params: LanguageModelV3CallOptions) => String(params.headers?.['x-chat']);
    expect(createCompactionMiddleware({ conversationId: fromV4 }).specificationVersion).toBe('v3');
    expect(createCompactionMiddleware({ conversationId: fromV3 }).specificationVersion).toBe('v3');
  });
});
