import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { MID_CONVERSATION_SYSTEM_BETA } from '../core/conversation/validate.js';
import { estimateRequestTokens } from './prompt-usage.js';
import {
  anthropicClient,
  closeStarted,
  openAIClient,
  question,
  start,
} from './scripted-model-server.test-utils.js';

afterEach(closeStarted);

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

  it('opens each answer with a signed thinking block when the request turns thinking on', async () => {
    const { anthropicBaseURL } = await start(['Plain.', 'Streamed.']);
    const client = anthropicClient(anthropicBaseURL);
    const request = {
      model: 'claude-test',
      max_tokens: 2000,
      thinking: { type: 'adaptive' as const },
      messages: question,
    };
    const plain = await client.messages.create(request);
    expect(plain.content[0]).toMatchObject({ type: 'thinking', thinking: '' });
    expect(plain.content[1]).toEqual({ type: 'text', text: 'Plain.' });
    const streamed = await client.messages.stream(request).finalMessage();
    expect(streamed.content[0]).toMatchObject({
      type: 'thinking',
      signature: expect.stringMatching(/^scripted-signature-/),
    });
    expect(streamed.content[1]).toMatchObject({ type: 'text', text: 'Streamed.' });
    const off = await start(['No thinking.']);
    const unthinking = await anthropicClient(off.anthropicBaseURL).messages.create({
      ...request,
      thinking: undefined,
    });
    expect(unthinking.content.map((block) => block.type)).toEqual(['text']);
  });

  it('holds a thinking request to the API’s rules: the tool turn opens with its thinking, a prefill holds none', async () => {
    const { anthropicBaseURL, requests } = await start(['never sent']);
    const client = anthropicClient(anthropicBaseURL);
    const toolTurn = (content: Anthropic.ContentBlockParam[]): Anthropic.MessageParam[] => [
      ...question,
      {
        role: 'assistant',
        content: [...content, { type: 'tool_use', id: 'toolu_1', name: 'read', input: {} }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] },
    ];
    const send = (body: Omit<Anthropic.MessageCreateParamsNonStreaming, 'model' | 'max_tokens'>) =>
      client.messages
        .create({ model: 'claude-test', max_tokens: 2000, ...body })
        .catch((caught: unknown) => caught);
    const withoutThinking = await send({ thinking: { type: 'adaptive' }, messages: toolTurn([]) });
    expect(withoutThinking).toBeInstanceOf(Anthropic.BadRequestError);
    expect((withoutThinking as Error).message).toContain('must start with a thinking block');
    const prefill = await send({
      messages: [
        ...question,
        { role: 'assistant', content: [{ type: 'thinking', thinking: '', signature: 's' }] },
      ],
    });
    expect((prefill as Error).message).toContain('When thinking is disabled');
    // A null block where the thinking rules look is a 400 naming it, as the API answers, not a 500.
    const nullBlock = await send({
      thinking: { type: 'adaptive' },
      messages: [...toolTurn([]).slice(0, -1), { role: 'user', content: [null as never] }],
    });
    expect(nullBlock).toBeInstanceOf(Anthropic.BadRequestError);
    expect((nullBlock as Error).message).toContain('messages[2].content[0]');
    expect(requests.map((request) => request.outcome)).toEqual([
      'invalid-request',
      'invalid-request',
      'invalid-request',
    ]);
  });

  it('binds a thinking block to the messages before it on a model with preserved thinking, as the API does', async () => {
    const { anthropicBaseURL, requests } = await start(['First.', 'Second.', 'Third.', 'Fourth.']);
    const client = anthropicClient(anthropicBaseURL);
    const send = (model: string, messages: Anthropic.MessageParam[], extra: object = {}) =>
      client.messages
        .create({ model, max_tokens: 2000, thinking: { type: 'adaptive' }, messages, ...extra })
        .catch((caught: unknown) => caught);
    const first = (await send('claude-opus-5-5', question)) as Anthropic.Message;
    const history: Anthropic.MessageParam[] = [
      ...question,
      { role: 'assistant', content: first.content },
      { role: 'user', content: 'Go on.' },
    ];
    // Sent back as written: taken.
    expect(await send('claude-opus-5-5', history)).toMatchObject({ type: 'message' });
    // A message before the block changed: the API's 400, naming the block.
    const changed = [{ role: 'user' as const, content: 'Another question.' }, ...history.slice(1)];
    const rejected = await send('claude-opus-5-5', changed);
    expect(rejected).toBeInstanceOf(Anthropic.BadRequestError);
    expect((rejected as Error).message).toContain(
      'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation.',
    );
    // Asked to drop such blocks, or on a model without the check, the request is taken.
    const dropping = {
      thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } },
    };
    expect(await send('claude-opus-5-5', changed, dropping)).toMatchObject({ type: 'message' });
    expect(await send('claude-test', changed)).toMatchObject({ type: 'message' });
    expect(requests.map((request) => request.outcome)).toEqual([
      'text',
      'text',
      'invalid-request',
      'text',
      'text',
    ]);
  });

  it('rejects a block type the API does not take, as the API does', async () => {
    const { anthropicBaseURL, openaiBaseURL, requests } = await start(['never sent']);
    const anthropicError = await anthropicClient(anthropicBaseURL)
      .messages.create({
        model: 'claude-test',
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [{ type: 'input_file', file_id: 'file-1' } as never, { type: 'text', text: 'Read it.' }],
          },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(anthropicError).toBeInstanceOf(Anthropic.BadRequestError);
    expect((anthropicError as Error).message).toContain(
      "messages.0.content.0: Input tag 'input_file' found using 'type'",
    );
    const chatError = await openAIClient(openaiBaseURL)
      .chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: [{ type: 'input_file', filename: 'a.pdf' } as never] }],
      })
      .catch((caught: unknown) => caught);
    expect(chatError).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chatError as Error).message).toContain("Invalid value: 'input_file'");
    expect(requests.map((request) => request.outcome)).toEqual(['invalid-request', 'invalid-request']);
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
