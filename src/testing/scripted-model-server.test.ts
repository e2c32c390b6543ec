import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { MID_CONVERSATION_SYSTEM_BETA } from '../core/conversation/validate.js';
import { estimateRequestTokens } from './prompt-usage.js';
import type { ScriptStep } from './script.js';
import { type ScriptedModelServer, startScriptedModelServer } from './scripted-model-server.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(
  script: ScriptStep[] | Parameters<typeof startScriptedModelServer>[0]['script'],
  contextWindow?: number,
) {
  server = await startScriptedModelServer({
    script,
    ...(contextWindow === undefined ? {} : { contextWindow }),
  });
  return server;
}

function anthropicClient(baseURL: string, options: { maxRetries?: number; timeout?: number } = {}) {
  return new Anthropic({
    apiKey: 'test-key',
    baseURL,
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeout ?? 5000,
  });
}

function openAIClient(baseURL: string, options: { maxRetries?: number; timeout?: number } = {}) {
  return new OpenAI({
    apiKey: 'test-key',
    baseURL,
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeout ?? 5000,
  });
}

const question: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is in the repository?' }];

describe('Anthropic Messages API', () => {
  it('answers plain JSON with usage from the deterministic estimate and records the request', async () => {
    const { anthropicBaseURL, requests } = await start(['It holds a TypeScript package.']);
    const message = await anthropicClient(anthropicBaseURL).messages.create({
      model: 'claude-test',
      max_tokens: 100,
      system: 'You are terse.',
      messages: question,
    });
    expect(message.content).toEqual([{ type: 'text', text: 'It holds a TypeScript package.' }]);
    expect(message.stop_reason).toBe('end_turn');
    const body = { system: 'You are terse.', messages: question };
    expect(message.usage.input_tokens).toBe(estimateRequestTokens('anthropic', body));
    expect(message.usage.output_tokens).toBe(Math.ceil('It holds a TypeScript package.'.length / 4));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      api: 'anthropic',
      path: '/v1/messages',
      stream: false,
      outcome: 'text',
    });
    expect(requests[0]?.headers['x-api-key']).toBeUndefined();
    expect(requests[0]?.headers['anthropic-version']).toBeDefined();
  });

  it('streams the real event sequence and the SDK assembles text and tool calls', async () => {
    const { anthropicBaseURL } = await start([
      {
        type: 'tool-calls',
        text: 'Let me look.',
        calls: [{ id: 'toolu_1', name: 'read_file', input: { path: 'src/app.ts' } }],
      },
    ]);
    const stream = anthropicClient(anthropicBaseURL).messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: question,
    });
    const eventTypes: string[] = [];
    stream.on('streamEvent', (event) => eventTypes.push(event.type));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/app.ts' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(eventTypes[0]).toBe('message_start');
    expect(eventTypes.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(eventTypes.filter((type) => type === 'content_block_start')).toHaveLength(2);
    expect(eventTypes.filter((type) => type === 'content_block_stop')).toHaveLength(2);
  });

  it('cuts a text answer at max_tokens like a real model', async () => {
    const { anthropicBaseURL } = await start(['word '.repeat(100)]);
    const message = await anthropicClient(anthropicBaseURL).messages.create({
      model: 'claude-test',
      max_tokens: 10,
      messages: question,
    });
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'word '.repeat(8) });
  });

  it('writes and then reads the prompt cache at cache_control breakpoints', async () => {
    const { anthropicBaseURL } = await start(['first', 'second']);
    const client = anthropicClient(anthropicBaseURL);
    const history: Anthropic.MessageParam[] = [
      {
        role: 'user',
        content: [{ type: 'text', text: 'a long history '.repeat(50), cache_control: { type: 'ephemeral' } }],
      },
    ];
    const first = await client.messages.create({
      model: 'claude-test',
      max_tokens: 50,
      system: 'S',
      messages: history,
    });
    const prefixTokens = estimateRequestTokens('anthropic', { system: 'S', messages: history });
    expect(first.usage).toMatchObject({
      cache_creation_input_tokens: prefixTokens,
      cache_read_input_tokens: 0,
      input_tokens: 0,
    });
    const next: Anthropic.MessageParam[] = [
      ...history,
      { role: 'assistant', content: 'first' },
      { role: 'user', content: 'go on' },
    ];
    const second = await client.messages.create({
      model: 'claude-test',
      max_tokens: 50,
      system: 'S',
      messages: next,
    });
    expect(second.usage.cache_read_input_tokens).toBe(prefixTokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    expect(second.usage.input_tokens).toBe(
      estimateRequestTokens('anthropic', { system: 'S', messages: next }) - prefixTokens,
    );
  });

  it('rejects an orphan tool_result with the real 400 error shape', async () => {
    const { anthropicBaseURL, requests } = await start(['never sent']);
    const error = await anthropicClient(anthropicBaseURL)
      .messages.create({
        model: 'claude-test',
        max_tokens: 10,
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_missing', content: 'x' }] },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const badRequest = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect(badRequest.status).toBe(400);
    expect(badRequest.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(badRequest.message).toContain('messages[0].content[0]');
    expect(requests[0]?.outcome).toBe('invalid-request');
  });

  it('takes mid-conversation system messages only under the mid-conversation-system beta', async () => {
    const { anthropicBaseURL, requests } = await start(['Noted.', 'never sent']);
    const messages = [
      ...question,
      { role: 'system', content: 'Answer in one word.' },
    ] as unknown as Anthropic.MessageParam[];
    const withBeta = await anthropicClient(anthropicBaseURL).messages.create(
      { model: 'claude-test', max_tokens: 10, messages },
      { headers: { 'anthropic-beta': `prompt-caching-scope-2026-01-05,${MID_CONVERSATION_SYSTEM_BETA}` } },
    );
    expect(withBeta.content).toEqual([{ type: 'text', text: 'Noted.' }]);
    const error = await anthropicClient(anthropicBaseURL)
      .messages.create({ model: 'claude-test', max_tokens: 10, messages })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain('messages[1].role');
    expect(requests.map((request) => request.outcome)).toEqual(['text', 'invalid-request']);
  });

  it('counts tokens without using a script step', async () => {
    const { anthropicBaseURL, requests } = await start(['the only answer']);
    const client = anthropicClient(anthropicBaseURL);
    const counted = await client.messages.countTokens({
      model: 'claude-test',
      system: 'S',
      messages: question,
    });
    expect(counted.input_tokens).toBe(
      estimateRequestTokens('anthropic', { system: 'S', messages: question }),
    );
    const message = await client.messages.create({
      model: 'claude-test',
      max_tokens: 20,
      messages: question,
    });
    expect(message.content[0]).toMatchObject({ text: 'the only answer' });
    expect(requests.map((request) => request.outcome)).toEqual(['count-tokens', 'text']);
  });

  it('answers "prompt is too long" past the context window', async () => {
    const { anthropicBaseURL } = await start(['never sent'], 20);
    const error = await anthropicClient(anthropicBaseURL)
      .messages.create({
        model: 'claude-test',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x'.repeat(400) }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toMatch(/prompt is too long: \d+ tokens > 20 maximum/);
  });
});

describe('OpenAI Chat Completions API', () => {
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'What is in the repository?' },
  ];

  it('answers plain JSON with usage', async () => {
    const { openaiBaseURL, requests } = await start(['A TypeScript package.']);
    const completion = await openAIClient(openaiBaseURL).chat.completions.create({
      model: 'gpt-test',
      messages,
    });
    expect(completion.choices[0]?.message.content).toBe('A TypeScript package.');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.prompt_tokens).toBe(estimateRequestTokens('openai', { messages }));
    expect(requests[0]).toMatchObject({ api: 'openai', path: '/v1/chat/completions', outcome: 'text' });
    expect(requests[0]?.headers.authorization).toBeUndefined();
  });

  it('streams chunks ending in [DONE], with a usage chunk when include_usage is set', async () => {
    const { openaiBaseURL } = await start([
      { type: 'tool-calls', calls: [{ id: 'call_1', name: 'bash', input: { command: 'ls' } }] },
      'Two files.',
    ]);
    const client = openAIClient(openaiBaseURL);
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let argumentsText = '';
    let finishReason: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      argumentsText += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
      usage = chunk.usage ?? usage;
    }
    expect(JSON.parse(argumentsText)).toEqual({ command: 'ls' });
    expect(finishReason).toBe('tool_calls');
    expect(usage?.prompt_tokens).toBe(estimateRequestTokens('openai', { messages }));

    const final = await client.chat.completions.stream({ model: 'gpt-test', messages }).finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('Two files.');
  });

  it('rejects stream_options without stream, as OpenAI does', async () => {
    const { openaiBaseURL } = await start(['never sent']);
    const error = await openAIClient(openaiBaseURL)
      .chat.completions.create({ model: 'gpt-test', messages, stream_options: { include_usage: true } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('stream_options');
  });

  it('reports automatically cached prompt tokens for a repeated prefix', async () => {
    const { openaiBaseURL } = await start(['one', 'two']);
    const client = openAIClient(openaiBaseURL);
    await client.chat.completions.create({ model: 'gpt-test', messages });
    const longer: OpenAI.ChatCompletionMessageParam[] = [
      ...messages,
      { role: 'assistant', content: 'one' },
      { role: 'user', content: 'more' },
    ];
    const second = await client.chat.completions.create({ model: 'gpt-test', messages: longer });
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBe(
      estimateRequestTokens('openai', { messages }),
    );
  });

  it('rejects an orphan tool message and an oversize prompt with the real 400 error shape', async () => {
    const { openaiBaseURL } = await start(['never sent'], 30);
    const client = openAIClient(openaiBaseURL);
    const orphan = await client.chat.completions
      .create({ model: 'gpt-test', messages: [{ role: 'tool', tool_call_id: 'call_missing', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(orphan).toBeInstanceOf(OpenAI.BadRequestError);
    expect((orphan as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      type: 'invalid_request_error',
      param: 'messages[0]',
    });
    const tooLong = await client.chat.completions
      .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'x'.repeat(400) }] })
      .catch((caught: unknown) => caught);
    expect(tooLong).toBeInstanceOf(OpenAI.BadRequestError);
    expect((tooLong as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
  });
});

describe('faults', () => {
  it('sends 429 with retry-after, which the SDKs honour', async () => {
    const { anthropicBaseURL, openaiBaseURL, requests } = await start([
      { type: 'rate-limit', retryAfterSeconds: 0.3 },
      'after the wait',
      { type: 'rate-limit', retryAfterSeconds: 0.3 },
      'after the wait again',
    ]);
    let startedAt = Date.now();
    const message = await anthropicClient(anthropicBaseURL, { maxRetries: 1 }).messages.create({
      model: 'claude-test',
      max_tokens: 50,
      messages: question,
    });
    expect(message.content[0]).toMatchObject({ text: 'after the wait' });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
    startedAt = Date.now();
    const completion = await openAIClient(openaiBaseURL, { maxRetries: 1 }).chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('after the wait again');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
    expect(requests.map((request) => request.outcome)).toEqual(['rate-limit', 'text', 'rate-limit', 'text']);
  });

  it.each(['anthropic', 'openai'] as const)(
    '%s: 500 and 529 come in the provider error shape',
    async (api) => {
      const { anthropicBaseURL, openaiBaseURL } = await start([
        { type: 'server-error' },
        { type: 'server-error', status: 529 },
      ]);
      const call = () =>
        api === 'anthropic'
          ? anthropicClient(anthropicBaseURL).messages.create({
              model: 'm',
              max_tokens: 5,
              messages: question,
            })
          : openAIClient(openaiBaseURL).chat.completions.create({
              model: 'm',
              messages: [{ role: 'user', content: 'hi' }],
            });
      const first = (await call().catch((caught: unknown) => caught)) as {
        status?: number;
        message?: string;
      };
      const second = (await call().catch((caught: unknown) => caught)) as {
        status?: number;
        message?: string;
      };
      expect(first.status).toBe(500);
      expect(second.status).toBe(529);
      expect(second.message).toContain('Overloaded');
    },
  );

  it('hangs until the client times out, and close() drops the hanging socket', async () => {
    const { anthropicBaseURL, openaiBaseURL } = await start([{ type: 'hang' }, { type: 'hang' }]);
    await expect(
      anthropicClient(anthropicBaseURL, { timeout: 150 }).messages.create({
        model: 'm',
        max_tokens: 5,
        messages: question,
      }),
    ).rejects.toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    const pending = openAIClient(openaiBaseURL, { timeout: 60_000 })
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server?.close();
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it.each([
    ['anthropic', false],
    ['anthropic', true],
    ['openai', false],
    ['openai', true],
  ] as const)('%s (stream: %s): a dropped connection fails the call', async (api, stream) => {
    const { anthropicBaseURL, openaiBaseURL } = await start([{ type: 'drop-connection' }]);
    const call = async () => {
      if (api === 'anthropic') {
        const client = anthropicClient(anthropicBaseURL);
        const params = { model: 'm', max_tokens: 50, messages: question };
        return stream ? client.messages.stream(params).finalMessage() : client.messages.create(params);
      }
      const client = openAIClient(openaiBaseURL);
      const params = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
      return stream
        ? client.chat.completions.stream(params).finalChatCompletion()
        : client.chat.completions.create(params);
    };
    await expect(call()).rejects.toThrow();
  });

  it('gives an empty answer and an oversize answer with honest usage', async () => {
    const { anthropicBaseURL, openaiBaseURL } = await start([
      { type: 'empty' },
      { type: 'oversize' },
      { type: 'empty' },
      { type: 'oversize', tokens: 500 },
    ]);
    const anthropic = anthropicClient(anthropicBaseURL);
    const empty = await anthropic.messages.create({ model: 'm', max_tokens: 20, messages: question });
    expect(empty.content).toEqual([]);
    const oversize = await anthropic.messages.create({ model: 'm', max_tokens: 20, messages: question });
    expect(oversize.usage.output_tokens).toBe(200);
    const openai = openAIClient(openaiBaseURL);
    const emptyCompletion = await openai.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(emptyCompletion.choices[0]?.message.content).toBe('');
    const oversizeCompletion = await openai.chat.completions.create({
      model: 'm',
      max_completion_tokens: 20,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(oversizeCompletion.usage?.completion_tokens).toBe(500);
  });

  it('says so when the script has run out, without the SDK retrying', async () => {
    const { anthropicBaseURL, requests } = await start([]);
    const error = await anthropicClient(anthropicBaseURL, { maxRetries: 2 })
      .messages.create({ model: 'm', max_tokens: 5, messages: question })
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toContain('the script has no step for request #0');
    expect(requests).toHaveLength(1);
  });
});

describe('scripts', () => {
  it('calls a function script with the request, so answers can depend on it', async () => {
    const { openaiBaseURL } = await start((request) => {
      const messages = request.body.messages as { content: string }[];
      return `You said: ${messages.at(-1)?.content}`;
    });
    const completion = await openAIClient(openaiBaseURL).chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'ping' }],
    });
    expect(completion.choices[0]?.message.content).toBe('You said: ping');
  });

  it('answers 401 without an API key and 404 on an unknown path', async () => {
    const { url } = await start(['never sent']);
    const unauthorized = await fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'm', max_tokens: 5, messages: question }),
    });
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
    const notFound = await fetch(`${url}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(notFound.status).toBe(404);
  });
});
