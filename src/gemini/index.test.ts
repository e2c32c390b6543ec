import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../core/model/messages.js';
import type { SummaryRequest } from '../core/summary/summary-model.js';
import type { ScriptStep } from '../testing/script.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/scripted-model-server.js';
import { createGeminiSummaryModel } from './index.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const history: Message[] = [
  { role: 'user', content: 'Fix the failing test.' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Look first.', signature: 'anthropic-signature' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'expect(1).toBe(2)' }] },
  { role: 'user', content: 'Summarize the conversation so far.' },
];
const request: SummaryRequest = {
  system: 'You are a coding agent.',
  messages: history,
  maxOutputTokens: 500,
};

async function summarizer(script: ScriptStep[], options: { maxRetries?: number } = {}) {
  server = await startScriptedModelServer({ script });
  return createGeminiSummaryModel({
    model: 'gemini-test',
    apiKey: 'test-key',
    baseURL: server.geminiBaseURL,
    retryDelayMs: 1,
    ...options,
  });
}

describe('createGeminiSummaryModel', () => {
  it('summarizes through the real SDK: contents, system instruction, declared tools, usage', async () => {
    const model = await summarizer(['The test expects 1 to be 2; fix the expectation.']);
    const result = await model.summarize(request);
    expect(result.text).toBe('The test expects 1 to be 2; fix the expectation.');
    expect(result.usage?.inputTokens).toBe(server!.requests[0]!.inputTokens);
    const sent = server!.requests[0]!;
    expect(sent.path).toBe('/v1beta/models/gemini-test:generateContent');
    expect(sent.body.systemInstruction).toMatchObject({ parts: [{ text: 'You are a coding agent.' }] });
    expect(sent.body.generationConfig).toMatchObject({ maxOutputTokens: 500 });
    expect(JSON.stringify(sent.body.contents)).not.toContain('anthropic-signature');
    expect(sent.body.toolConfig).toEqual({ functionCallingConfig: { mode: 'NONE' } });
  });

  it('retries a rate limit and a server error, then answers', async () => {
    const model = await summarizer([
      { type: 'rate-limit', retryAfterSeconds: 0 },
      { type: 'server-error' },
      'Done.',
    ]);
    expect((await model.summarize(request)).text).toBe('Done.');
    expect(server!.requests.map((sent) => sent.outcome)).toEqual(['rate-limit', 'server-error', 'text']);
  });

  it('fails with SUMMARY_FAILED and the status on a 400, without retrying', async () => {
    const model = await summarizer(['unused']);
    // A response to no call: the API (and the scripted server) answers 400.
    const bad: SummaryRequest = {
      ...request,
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'x' }] }],
    };
    const error = await model.summarize(bad).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'SUMMARY_FAILED', status: 400 });
    expect(server!.requests).toHaveLength(1);
  });

  it('fails with SUMMARY_FAILED on an empty answer', async () => {
    const model = await summarizer([{ type: 'empty' }]);
    await expect(model.summarize(request)).rejects.toMatchObject({ code: 'SUMMARY_FAILED' });
  });
});

describe('the usage of a Gemini summary', () => {
  let fixed: Server | undefined;
  afterEach(async () => {
    fixed?.closeAllConnections();
    if (fixed?.listening) await new Promise((resolve) => fixed!.close(resolve));
    fixed = undefined;
  });

  /** A server on 127.0.0.1 that answers every request with `answer`, as a provider or proxy might. */
  async function modelAnswering(answer: unknown) {
    fixed = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
    fixed.listen(0, '127.0.0.1');
    await once(fixed, 'listening');
    const { port } = fixed.address() as AddressInfo;
    return createGeminiSummaryModel({
      model: 'gemini-test',
      apiKey: 'test-key',
      baseURL: `http://127.0.0.1:${port}`,
    });
  }

  it.each([-5, 12.5, '12', null])('drops a count of %s and keeps the true ones', async (nonsense) => {
    const model = await modelAnswering({
      candidates: [{ content: { role: 'model', parts: [{ text: 'The summary.' }] } }],
      usageMetadata: {
        promptTokenCount: nonsense,
        candidatesTokenCount: 30,
        thoughtsTokenCount: nonsense,
        cachedContentTokenCount: nonsense,
      },
    });
    expect(await model.summarize(request)).toEqual({ text: 'The summary.', usage: { outputTokens: 30 } });
  });
});
