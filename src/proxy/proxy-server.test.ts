import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, type ScriptStep, startScriptedModelServer } from '../testing/index.js';
import { ANY_PROVIDER_HEADERS } from './proxy-harness.test-utils.js';
import type { RunningProxy } from './proxy-options.js';
import { startProxy } from './proxy-server.js';
import type { ProxyRequestRecord } from './proxy-stats.js';

let server: ScriptedModelServer | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  proxy = undefined;
  server = undefined;
});

async function start(script: ScriptStep[] | Parameters<typeof startScriptedModelServer>[0]['script']) {
  server = await startScriptedModelServer({ script });
  proxy = await startProxy({ upstream: server.url });
  return { server, proxy };
}

const anthropic = (baseURL: string) =>
  new Anthropic({ apiKey: 'test-key', baseURL, maxRetries: 0, timeout: 30_000 });
const openai = (baseURL: string) =>
  new OpenAI({ apiKey: 'test-key', baseURL, maxRetries: 0, timeout: 30_000 });

describe('proxy with the official SDKs', () => {
  it('Anthropic, plain: the answer, the path with its query, and the headers pass through', async () => {
    const { server, proxy } = await start(['Hello through the proxy.']);
    const message = await anthropic(proxy.url).beta.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
      betas: ['context-management-2025-06-27'],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello through the proxy.' }]);
    expect(server.requests[0]?.path).toBe('/v1/messages');
    expect(server.requests[0]?.headers['anthropic-beta']).toBe('context-management-2025-06-27');
    expect(server.requests[0]?.body).toEqual({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  it('Anthropic, streamed: events arrive and the SDK assembles a tool call', async () => {
    const { proxy } = await start([
      {
        type: 'tool-calls',
        text: 'Looking.',
        calls: [{ id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } }],
      },
    ]);
    const stream = anthropic(proxy.url).messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Read a.ts' }],
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
    ]);
  });

  it('OpenAI chat, plain and streamed', async () => {
    const { proxy } = await start(['One.', 'Two.']);
    const client = openai(`${proxy.url}/v1`);
    const plain = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'First' }],
    });
    expect(plain.choices[0]?.message.content).toBe('One.');
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Second' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Two.');
  });

  it('forwards other paths untouched: count_tokens answers, an unknown path keeps its 404', async () => {
    const { server, proxy } = await start([]);
    const counted = await anthropic(proxy.url).messages.countTokens({
      model: 'claude-test',
      messages: [{ role: 'user', content: 'Count me' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const missing = await fetch(`${proxy.url}/v1/models`, { headers: { authorization: 'Bearer x' } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain('no route');
    expect(server.requests.map((request) => request.path)).toEqual([
      '/v1/messages/count_tokens',
      '/v1/models',
    ]);
  });

  it('serves its totals at GET /agent-compact/stats', async () => {
    const { proxy } = await start(['ok']);
    await anthropic(proxy.url).messages.create({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }],
    });
    const stats = (await (await fetch(`${proxy.url}/agent-compact/stats`)).json()) as Record<string, unknown>;
    expect(stats).toMatchObject({ requests: 1, conversationRequests: 1, sessions: 1 });
  });
});

describe('streaming', () => {
  it('passes each event on as it arrives, before the upstream has finished', async () => {
    const firstEvent = 'event: message_start\ndata: {"type":"message_start"}\n\n';
    const upstream = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(firstEvent);
      setTimeout(() => response.end('event: message_stop\ndata: {"type":"message_stop"}\n\n'), 400);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
    try {
      proxy = await startProxy({ upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` });
      const started = performance.now();
      const response = await fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: 'm',
          max_tokens: 10,
          stream: true,
          messages: [{ role: 'user', content: 'x' }],
        }),
      });
      const reader = response.body!.getReader();
      const first = await reader.read();
      const firstAfter = performance.now() - started;
      expect(new TextDecoder().decode(first.value)).toBe(firstEvent);
      expect(firstAfter).toBeLessThan(300);
      await reader.cancel();
    } finally {
      upstream.closeAllConnections();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });
});

describe('bad traffic and upstream faults', () => {
  it('forwards a body that is not JSON unchanged, so the provider answers its own 400', async () => {
    const { server, proxy } = await start([]);
    const response = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(400);
    expect(server.requests[0]?.outcome).toBe('invalid-request');
  });

  it('forwards a request that breaks the provider rules unchanged', async () => {
    const { server, proxy } = await start([]);
    const error = await anthropic(proxy.url)
      .messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'assistant', content: 'first' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(server.requests[0]?.body.messages).toEqual([{ role: 'assistant', content: 'first' }]);
  });

  it.each([
    ['500', { type: 'server-error' } as ScriptStep, Anthropic.InternalServerError, 500],
    ['429', { type: 'rate-limit', retryAfterSeconds: 7 } as ScriptStep, Anthropic.RateLimitError, 429],
  ])('passes a %s through with its status, shape and headers', async (_name, step, errorClass, status) => {
    const { proxy } = await start([step]);
    const error = (await anthropic(proxy.url)
      .messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.APIError>;
    expect(error).toBeInstanceOf(errorClass);
    expect(error.status).toBe(status);
    if (status === 429) expect(error.headers?.get('retry-after')).toBe('7');
  });

  it('breaks the client connection when the upstream resets mid-stream, and its record says so', async () => {
    server = await startScriptedModelServer({ script: [{ type: 'drop-connection' }] });
    const records: ProxyRequestRecord[] = [];
    const lines: string[] = [];
    let recorded!: () => void;
    const done = new Promise<void>((resolve) => {
      recorded = resolve;
    });
    proxy = await startProxy({
      upstream: server.url,
      log: (line) => lines.push(line),
      onRequest: (record) => {
        records.push(record);
        recorded();
      },
    });
    const stream = anthropic(proxy.url).messages.stream({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }],
    });
    await expect(stream.finalMessage()).rejects.toThrow();
    await done;
    // The status line was a 200: without the mark the record read as an answer that went well.
    expect(records).toMatchObject([{ status: 200, answerBroken: true }]);
    expect(records[0]?.clientClosed).toBeUndefined();
    expect(lines.join('\n')).toContain('200');
    expect(lines.join('\n')).toContain('answer broke off upstream');
    const stats = (await (await fetch(`${proxy.url}/agent-compact/stats`)).json()) as {
      upstreamErrors: number;
    };
    expect(stats.upstreamErrors).toBe(1);
  });

  it.each([
    [
      'Anthropic',
      '/v1/messages',
      { model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'x' }] },
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      'overloaded_error: Overloaded',
    ],
    [
      'OpenAI Responses',
      '/v1/responses',
      { model: 'm', stream: true, input: 'x' },
      'event: error\ndata: {"type":"error","code":"server_error","message":"Overloaded","param":null,"sequence_number":3}\n\n',
      'server_error: Overloaded',
    ],
    [
      'OpenAI Chat',
      '/v1/chat/completions',
      { model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] },
      'data: {"error":{"message":"Overloaded","type":"server_error","param":null,"code":null}}\n\n',
      'server_error: Overloaded',
    ],
    [
      'Gemini',
      '/v1beta/models/gemini-test:streamGenerateContent?alt=sse',
      { contents: [{ role: 'user', parts: [{ text: 'x' }] }] },
      'data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n\r\n',
      'UNAVAILABLE: The model is overloaded.',
    ],
  ])(
    '%s: an error the upstream streams after a 200 is on the record and the log line',
    async (_api, path, body, errorEvent, named) => {
      server = await startScriptedModelServer({ script: [{ type: 'stream-error' }] });
      const records: ProxyRequestRecord[] = [];
      const lines: string[] = [];
      proxy = await startProxy({
        upstream: server.url,
        log: (line) => lines.push(line),
        onRequest: (record) => records.push(record),
      });
      const answer = await fetch(`${proxy.url}${path}`, {
        method: 'POST',
        headers: ANY_PROVIDER_HEADERS,
        body: JSON.stringify(body),
      });
      expect(answer.status).toBe(200);
      // The client gets the provider's own event, byte for byte, so its retry logic sees it.
      expect((await answer.text()).endsWith(errorEvent)).toBe(true);
      await proxy.close();
      expect(records).toMatchObject([{ status: 200, streamError: named }]);
      expect(lines.join('\n')).toContain(`(stream error: ${named})`);
    },
  );

  it('answers 502 in each provider shape when the upstream is down', async () => {
    proxy = await startProxy({ upstream: 'http://127.0.0.1:9' });
    const anthropicError = (await anthropic(proxy.url)
      .messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.APIError>;
    expect(anthropicError.status).toBe(502);
    expect(anthropicError.error).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    const openAIError = (await openai(`${proxy.url}/v1`)
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(openAIError.status).toBe(502);
    expect(openAIError.error).toMatchObject({ type: 'server_error' });
  });
});
