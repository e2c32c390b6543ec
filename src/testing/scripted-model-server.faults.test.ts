import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  anthropicClient,
  closeStarted,
  openAIClient,
  question,
  start,
} from './scripted-model-server.test-utils.js';

afterEach(closeStarted);

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
    const { anthropicBaseURL, openaiBaseURL, close } = await start([{ type: 'hang' }, { type: 'hang' }]);
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
    await close();
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

  it.each(['anthropic', 'openai', 'responses'] as const)(
    '%s: a stream-error step starts the answer with a 200, then the SDK gets the provider error',
    async (api) => {
      const { anthropicBaseURL, openaiBaseURL, requests } = await start([
        { type: 'stream-error' },
        { type: 'stream-error' },
      ]);
      const streamed = async () => {
        if (api === 'anthropic') {
          const stream = anthropicClient(anthropicBaseURL).messages.stream({
            model: 'm',
            max_tokens: 50,
            messages: question,
          });
          return stream.finalMessage();
        }
        const client = openAIClient(openaiBaseURL);
        if (api === 'openai') {
          return client.chat.completions
            .stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
            .finalChatCompletion();
        }
        return client.responses.stream({ model: 'm', input: 'hi' }).finalResponse();
      };
      const error = await streamed().catch((caught: unknown) => caught);
      if (api === 'responses') {
        // The SDK rejects with the `error` event itself, as it does for the real API's.
        expect(error).toMatchObject({ type: 'error', code: 'server_error', message: 'Overloaded' });
      } else {
        expect(error).toBeInstanceOf(api === 'anthropic' ? Anthropic.APIError : OpenAI.APIError);
        expect(String(error)).toMatch(api === 'anthropic' ? /overloaded_error/ : /Overloaded/);
      }
      // Not streamed, the same step is the provider's error status (529, Anthropic's overload).
      const plain = anthropicClient(anthropicBaseURL).messages.create({
        model: 'm',
        max_tokens: 50,
        messages: question,
      });
      await expect(plain).rejects.toMatchObject({ status: 529 });
      expect(requests.map((request) => request.outcome)).toEqual(['stream-error', 'stream-error']);
    },
  );

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
