import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { CompactError } from '../core/model/errors.js';
import type { Message } from '../core/model/messages.js';
import type { SummaryRequest } from '../core/summary/summary-model.js';
import type { ScriptStep } from '../testing/script.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/scripted-model-server.js';
import {
  createOpenAISummaryModel,
  fromChatCompletionMessages,
  type OpenAISummaryModelOptions,
  summaryUsageFromOpenAI,
  summaryUsageFromResponses,
  toChatCompletionMessages,
} from './index.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const system = 'You are a coding agent working in /repo.';
const history: Message[] = [
  { role: 'user', content: 'List the files.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'call_1', name: 'bash', input: { command: 'ls' } }],
  },
  {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'a.ts\nb.ts\n'.repeat(30) }],
  },
  { role: 'assistant', content: 'There are two files.' },
];
const instruction: Message = { role: 'user', content: 'Summarize the conversation so far.' };
const request: SummaryRequest = { system, messages: [...history, instruction], maxOutputTokens: 300 };

async function setup(script: ScriptStep[], options: Partial<OpenAISummaryModelOptions> = {}) {
  server = await startScriptedModelServer({ script });
  const model = createOpenAISummaryModel({
    model: 'gpt-test',
    apiKey: 'test-key',
    baseURL: server.openaiBaseURL,
    retryDelayMs: 20,
    ...options,
  });
  return { server, model };
}

async function failure(promise: Promise<unknown>): Promise<CompactError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CompactError.isInstance(error)) throw new Error(`expected a CompactError, got ${String(error)}`);
  return error;
}

describe('createOpenAISummaryModel', () => {
  it('sends the converted conversation with max_tokens to a compatible server and surfaces usage', async () => {
    const { server, model } = await setup(['warm-up', 'the summary']);
    // An earlier agent request with the same prefix is cached automatically.
    const client = new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseURL, maxRetries: 0 });
    await client.chat.completions.create({
      model: 'gpt-test',
      messages: toChatCompletionMessages({ system, messages: history }),
    });
    const before = structuredClone(request);
    const result = await model.summarize(request);
    expect(request).toEqual(before);
    expect(result.text).toBe('the summary');
    const body = server.requests[1]?.body as {
      messages: OpenAI.ChatCompletionMessageParam[];
      max_tokens: number;
    };
    expect(body.max_tokens).toBe(300);
    expect(body.messages[0]).toEqual({ role: 'system', content: system });
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: 'Summarize the conversation so far.' });
    expect(result.usage).toEqual({
      inputTokens: server.requests[1]?.inputTokens,
      outputTokens: Math.ceil('the summary'.length / 4),
      cacheReadTokens: server.requests[0]?.inputTokens,
    });
    expect(model).toMatchObject({ specificationVersion: 'v1', provider: 'openai', modelId: 'gpt-test' });
  });

  it("sends the agent's tools unchanged with tool_choice none", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'bash',
          parameters: { type: 'object', properties: { command: { type: 'string' } } },
        },
      },
    ];
    const { server, model } = await setup(['ok'], { tools });
    await model.summarize(request);
    expect(server.requests[0]?.body).toMatchObject({ tools, tool_choice: 'none' });
  });

  it('uses max_completion_tokens when asked to, and a given client and model', async () => {
    server = await startScriptedModelServer({ script: ['ok'] });
    const client = new OpenAI({ apiKey: 'given', baseURL: server.openaiBaseURL });
    const model = createOpenAISummaryModel({
      client,
      model: 'small-model',
      maxTokens: 50,
      maxTokensField: 'max_completion_tokens',
      systemRole: 'developer',
    });
    await model.summarize(request);
    expect(server.requests[0]?.body).toMatchObject({ model: 'small-model', max_completion_tokens: 50 });
    expect((server.requests[0]?.body.messages as { role: string }[] | undefined)?.[0]?.role).toBe(
      'developer',
    );
  });

  it('honours retry-after on 429 rather than its own backoff', async () => {
    const { server, model } = await setup([{ type: 'rate-limit', retryAfterSeconds: 0.25 }, 'summary'], {
      retryDelayMs: 5000,
    });
    const startedAt = Date.now();
    await expect(model.summarize(request)).resolves.toMatchObject({ text: 'summary' });
    const elapsed = Date.now() - startedAt;
    expect(elapsed).toBeGreaterThanOrEqual(240);
    // Its own backoff would have waited 5 s.
    expect(elapsed).toBeLessThan(5000);
    expect(server.requests.map((entry) => entry.outcome)).toEqual(['rate-limit', 'text']);
  });

  it('retries a 500, then fails with SUMMARY_FAILED and the status', async () => {
    const { server, model } = await setup([{ type: 'server-error' }, { type: 'server-error', status: 503 }], {
      maxRetries: 1,
    });
    const error = await failure(model.summarize(request));
    expect(error).toMatchObject({ code: 'SUMMARY_FAILED', status: 503 });
    expect(error.message).toBe('openai summary call failed (HTTP 503) after 2 tries: Internal server error');
    expect(server.requests).toHaveLength(2);
  });

  it('times out a hanging server', async () => {
    const { server, model } = await setup([{ type: 'hang' }], { timeoutMs: 100, maxRetries: 0 });
    const error = await failure(model.summarize(request));
    expect(error.code).toBe('SUMMARY_FAILED');
    expect(error.message).toContain('after 1 try: no answer within 100 ms (timeout)');
    expect(server.requests).toHaveLength(1);
  });

  it('retries after a dropped connection', async () => {
    const { server, model } = await setup([{ type: 'drop-connection' }, 'summary after the drop']);
    await expect(model.summarize(request)).resolves.toMatchObject({ text: 'summary after the drop' });
    expect(server.requests).toHaveLength(2);
  });

  it.each<[ScriptStep, string]>([
    [{ type: 'empty' }, 'has no text (no content'],
    [
      { type: 'tool-calls', calls: [{ name: 'bash', input: { command: 'ls' } }] },
      'has no text (1 tool calls',
    ],
    [{ type: 'oversize' }, 'more than the 300 asked for'],
  ])('fails without retrying on a broken answer: %o', async (step, message) => {
    const { server, model } = await setup([step, 'never']);
    const error = await failure(model.summarize(request));
    expect(error.code).toBe('SUMMARY_FAILED');
    expect(error.message).toContain(message);
    expect(server.requests).toHaveLength(1);
  });

  it('fails without retrying when the server rejects the conversation', async () => {
    const { server, model } = await setup(['never']);
    const error = await failure(
      model.summarize({
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_gone', content: 'old' }] },
          instruction,
        ],
        maxOutputTokens: 100,
      }),
    );
    expect(error).toMatchObject({ code: 'SUMMARY_FAILED', status: 400 });
    expect(server.requests).toHaveLength(1);
  });

  it('stops at once when the signal aborts, also while waiting to retry', async () => {
    const { model } = await setup([{ type: 'rate-limit', retryAfterSeconds: 30 }], {
      maxRetryAfterMs: 60_000,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    // Without the abort it would wait the 30 s and retry into an empty script (not ABORTED).
    const error = await failure(model.summarize(request, { signal: controller.signal }));
    expect(error.code).toBe('ABORTED');
  });
});

describe('format helpers', () => {
  it('round-trips a conversation through SDK-typed messages', () => {
    const messages = toChatCompletionMessages({ system, messages: history });
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(fromChatCompletionMessages(messages)).toEqual({ system, messages: history });
  });

  it('reads a response message, dropping response-only fields', async () => {
    server = await startScriptedModelServer({
      script: [{ type: 'tool-calls', calls: [{ id: 'call_7', name: 'bash', input: { command: 'pwd' } }] }],
    });
    const client = new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseURL, maxRetries: 0 });
    const sent: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'where am I?' }];
    const completion = await client.chat.completions.create({ model: 'm', messages: sent });
    const reply = completion.choices[0]?.message;
    if (!reply) throw new Error('no reply');
    expect(fromChatCompletionMessages([...sent, reply]).messages).toEqual([
      { role: 'user', content: 'where am I?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_7', name: 'bash', input: { command: 'pwd' } }],
      },
    ]);
  });
});

describe('summaryUsageFromOpenAI and summaryUsageFromResponses', () => {
  it.each([-5, Number.NaN, Number.POSITIVE_INFINITY, 12.5, '12', null])(
    'drop a count of %s and keep the true ones',
    (nonsense) => {
      const chat = {
        prompt_tokens: nonsense,
        completion_tokens: 9,
        prompt_tokens_details: { cached_tokens: nonsense },
      };
      expect(summaryUsageFromOpenAI(chat as never)).toEqual({ outputTokens: 9 });
      const responses = {
        input_tokens: 90,
        output_tokens: nonsense,
        input_tokens_details: { cached_tokens: nonsense },
      };
      expect(summaryUsageFromResponses(responses as never)).toEqual({ inputTokens: 90 });
    },
  );
});
