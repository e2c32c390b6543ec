import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, Type } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../../testing/index.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';
import { MAX_RECALL_ROUNDS } from './recall-forward.js';

const startProxyOver = useProxyHarness();

const ANSWER = 'Answered from what I recalled.';

/** Gemini's `toolConfig`, under the JSON name or the proto's (`tool_config.function_calling_config`). */
type GeminiToolConfig = {
  functionCallingConfig?: { mode?: string };
  function_calling_config?: { mode?: string };
};

/** True when the request asks for no tool calls, in any format's words. */
function forbidsToolCalls(body: Record<string, unknown>): boolean {
  const choice = body.tool_choice as { type?: string } | string | undefined;
  const config = (body.toolConfig ?? body.tool_config) as GeminiToolConfig | undefined;
  const gemini = (config?.functionCallingConfig ?? config?.function_calling_config)?.mode;
  return choice === 'none' || (typeof choice === 'object' && choice.type === 'none') || gemini === 'NONE';
}

/** A model that calls `recall` on every turn, as a provider would, unless the request forbids tool calls. */
function recallForever() {
  let calls = 0;
  return (request: Omit<RecordedRequest, 'outcome'>): ScriptStep => {
    if (forbidsToolCalls(request.body)) return ANSWER;
    calls += 1;
    return {
      type: 'tool-calls',
      calls: [{ id: `call_recall_${calls}`, name: 'recall', input: { id: 'r1' } }],
    };
  };
}

async function start() {
  return startProxyOver(recallForever(), { recall: true });
}

/** Every request upstream: the client's, then one follow-up per round, the last forbidding tool calls. */
function expectRounds(requests: readonly RecordedRequest[]): void {
  expect(requests).toHaveLength(MAX_RECALL_ROUNDS + 1);
  expect(requests.map((request) => forbidsToolCalls(request.body))).toEqual([false, false, false, true]);
  expect(requests.every((request) => request.outcome !== 'invalid-request')).toBe(true);
}

describe('--recall after its last round', () => {
  it.each([false, true])('Anthropic (stream %s): the client gets the text answer', async (stream) => {
    const { server, proxy } = await start();
    const client = new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 });
    const request = {
      model: 'claude-test',
      max_tokens: 100,
      tools: [{ name: 'read_file', input_schema: { type: 'object' as const, properties: {} } }],
      messages: [{ role: 'user' as const, content: 'Look at the old output again.' }],
    };
    const message = stream
      ? await client.messages.stream(request).finalMessage()
      : await client.messages.create(request);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: ANSWER })]);
    expect(message.stop_reason).toBe('end_turn');
    expectRounds(server.requests);
  });

  it.each([false, true])('OpenAI chat (stream %s): the client gets the text answer', async (stream) => {
    const { server, proxy } = await start();
    const client = new OpenAI({ apiKey: 'k', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const request = {
      model: 'gpt-test',
      tools: [{ type: 'function' as const, function: { name: 'read_file', parameters: { type: 'object' } } }],
      messages: [{ role: 'user' as const, content: 'Look at the old output again.' }],
    };
    let text = '';
    if (stream) {
      for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) {
        text += chunk.choices[0]?.delta.content ?? '';
        expect(chunk.choices[0]?.delta.tool_calls).toBeUndefined();
      }
    } else {
      const completion = await client.chat.completions.create(request);
      text = completion.choices[0]?.message.content ?? '';
      expect(completion.choices[0]?.message.tool_calls ?? []).toEqual([]);
    }
    expect(text).toBe(ANSWER);
    expectRounds(server.requests);
  });

  it.each([false, true])('Responses (stream %s): the client gets the text answer', async (stream) => {
    const { server, proxy } = await start();
    const client = new OpenAI({ apiKey: 'k', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const request = {
      model: 'gpt-test',
      tools: [{ type: 'function' as const, name: 'read_file', parameters: {}, strict: false }],
      input: 'Look at the old output again.',
    };
    const response = stream
      ? await client.responses.stream(request).finalResponse()
      : await client.responses.create(request);
    expect(response.output_text).toBe(ANSWER);
    expect(response.output.map((item) => item.type)).toEqual(['message']);
    expectRounds(server.requests);
  });

  it.each([false, true])('Gemini (stream %s): the client gets the text answer', async (stream) => {
    const { server, proxy } = await start();
    const ai = new GoogleGenAI({ apiKey: 'k', apiVersion: 'v1beta', httpOptions: { baseUrl: proxy.url } });
    const request = {
      model: 'gemini-test',
      contents: [{ role: 'user', parts: [{ text: 'Look at the old output again.' }] }],
      config: {
        tools: [{ functionDeclarations: [{ name: 'read_file', parameters: { type: Type.OBJECT } }] }],
      },
    };
    let text = '';
    if (stream) {
      for await (const chunk of await ai.models.generateContentStream(request)) text += chunk.text ?? '';
    } else {
      const answer = await ai.models.generateContent(request);
      text = answer.text ?? '';
      expect(answer.functionCalls).toBeUndefined();
    }
    expect(text).toBe(ANSWER);
    expectRounds(server.requests);
  });

  it('Gemini written in proto names: the last round forbids calls in tool_config, never beside it', async () => {
    const { server, proxy } = await start();
    const answer = await fetch(`${proxy.url}/v1beta/models/gemini-test:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'Look at the old output again.' }] }],
        tools: [{ function_declarations: [{ name: 'read_file' }] }],
        tool_config: { function_calling_config: { mode: 'AUTO' } },
      }),
    });
    expect(answer.status).toBe(200);
    expect(JSON.stringify(await answer.json())).toContain(ANSWER);
    expectRounds(server.requests);
    // The API reads either name; a request (or its config) naming the field twice is ambiguous.
    for (const { body } of server.requests) expect(Object.keys(body)).not.toContain('toolConfig');
    expect(server.requests.at(-1)!.body.tool_config).toEqual({ function_calling_config: { mode: 'NONE' } });
  });
});
