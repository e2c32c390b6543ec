import { afterEach, describe, expect, it } from 'vitest';
import { geminiBody } from '../../../core/wire/gemini/gemini-session.test-utils.js';
import type { Script } from '../../script.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../scripted-model-server.js';
import { signatureOf } from './gemini-server.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(script: Script, contextWindow?: number) {
  server = await startScriptedModelServer({ script, ...(contextWindow ? { contextWindow } : {}) });
  return server;
}

function post(path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': 'k' }) {
  return fetch(`${server!.geminiBaseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** A Gemini answer or error, read loosely: the tests check its fields. */
// biome-ignore lint/suspicious/noExplicitAny: JSON from the wire, checked field by field below.
const json = (response: Response): Promise<any> => response.json();

const hello = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };

describe('the scripted model server speaks the Gemini API', () => {
  it('a stream-error step starts the stream with a chunk, then sends a chunk that holds the error', async () => {
    await start([{ type: 'stream-error' }, { type: 'stream-error', status: 500 }]);
    const streamed = await post('/v1beta/models/gemini-test:streamGenerateContent?alt=sse', hello);
    expect(streamed.status).toBe(200);
    const chunks = (await streamed.text()).split('\r\n\r\n').filter((chunk) => chunk !== '');
    expect(chunks).toHaveLength(2);
    expect(JSON.parse(chunks[0]!.slice('data: '.length)).candidates[0].content.parts).toEqual([
      { text: 'This answer ' },
    ]);
    expect(JSON.parse(chunks[1]!.slice('data: '.length))).toEqual({
      error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' },
    });
    const plain = await post('/v1beta/models/gemini-test:generateContent', hello);
    expect(plain.status).toBe(500);
  });

  it('answers generateContent with a candidate and usageMetadata, the key hidden from the record', async () => {
    await start(['Hello!']);
    const response = await post('/v1beta/models/gemini-test:generateContent', hello);
    const body = await json(response);
    expect(body.candidates[0].content).toEqual({ role: 'model', parts: [{ text: 'Hello!' }] });
    expect(body.candidates[0].finishReason).toBe('STOP');
    expect(body.usageMetadata.promptTokenCount).toBe(server!.requests[0]!.inputTokens);
    expect(server!.requests[0]).toMatchObject({ api: 'gemini', stream: false, outcome: 'text' });
    expect(server!.requests[0]!.headers['x-goog-api-key']).toBeUndefined();
  });

  it('streams SSE chunks with a signed first call, and takes the key from ?key=', async () => {
    await start([
      {
        type: 'tool-calls',
        calls: [
          { name: 'ls', input: { dir: '.' } },
          { name: 'pwd', input: {} },
        ],
      },
    ]);
    const response = await post('/v1beta/models/m:streamGenerateContent?alt=sse&key=k', hello, {});
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const chunks = (await response.text())
      .split('\r\n\r\n')
      .filter(Boolean)
      .map((event) => JSON.parse(event.replace(/^data: /, '')));
    expect(chunks.map((chunk) => chunk.candidates[0].content.parts[0])).toEqual([
      { functionCall: { name: 'ls', args: { dir: '.' } }, thoughtSignature: signatureOf(1) },
      { functionCall: { name: 'pwd', args: {} } },
    ]);
    expect(chunks.at(-1).candidates[0].finishReason).toBe('STOP');
  });

  it('counts tokens without using the script', async () => {
    await start([]);
    const response = await post('/v1beta/models/m:countTokens', hello);
    expect(await response.json()).toEqual({ totalTokens: server!.requests[0]!.inputTokens });
  });

  it.each([
    ['no key', hello, {}, 403, 'PERMISSION_DENIED'],
    ['no contents', {}, undefined, 400, 'INVALID_ARGUMENT'],
  ])('rejects a request with %s in the API error shape', async (_name, body, headers, code, status) => {
    await start(['unused']);
    const response = await post('/v1beta/models/m:generateContent', body, headers);
    expect(response.status).toBe(code);
    expect((await json(response)).error).toMatchObject({ code, status });
  });

  it('rejects a request whose current-turn call lost its thought signature', async () => {
    await start(['unused', 'unused']);
    const body = geminiBody(2);
    expect((await post('/v1beta/models/m:generateContent', body)).status).toBe(200);
    delete body.contents[3]!.parts[1]!.thoughtSignature;
    const response = await post('/v1beta/models/m:generateContent', body);
    expect(response.status).toBe(400);
    expect((await json(response)).error.message).toMatch(/thought_signature.*contents\[3\]\.parts\[1\]/);
  });

  it('answers a rate limit and a prompt over the context window in the API shape', async () => {
    await start([{ type: 'rate-limit', retryAfterSeconds: 2 }], 10_000);
    const limited = await post('/v1beta/models/m:generateContent', hello);
    expect(limited.status).toBe(429);
    expect((await json(limited)).error.status).toBe('RESOURCE_EXHAUSTED');
    const big = await post('/v1beta/models/m:generateContent', geminiBody(40));
    expect(big.status).toBe(400);
    expect((await json(big)).error.message).toMatch(/exceeds the maximum number of tokens/);
  });
});
