/**
 * `--recall` on Chat Completions with a thinking model that returns `reasoning_content` (DeepSeek,
 * vLLM): the follow-up request the proxy sends after answering recall carries the model's turn with
 * its reasoning, which DeepSeek's thinking mode requires of every turn that called a tool (400
 * "The reasoning_content in the thinking mode must be passed back to the API" without it).
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningProxy } from '../proxy-options.js';
import { startProxy } from '../proxy-server.js';

const REASONING = ['The user asks about caching. ', 'I should recall r1 first.'];
const recallCall = {
  id: 'call_recall_1',
  type: 'function',
  function: { name: 'recall', arguments: '{"id":"r1"}' },
};

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = {
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** The first answer calls recall after reasoning; the next says it is done. Streamed when asked. */
function answer(first: boolean, stream: boolean): string {
  if (!stream) {
    const message = first
      ? { role: 'assistant', content: null, reasoning_content: REASONING.join(''), tool_calls: [recallCall] }
      : { role: 'assistant', content: 'Done.' };
    return JSON.stringify({
      id: 'c1',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message, finish_reason: first ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  }
  if (!first) return `${chunk({ role: 'assistant', content: 'Done.' }, 'stop')}data: [DONE]\n\n`;
  return [
    chunk({ role: 'assistant', content: null, reasoning_content: REASONING[0] }),
    chunk({ reasoning_content: REASONING[1] }),
    chunk({ tool_calls: [{ index: 0, ...recallCall }] }),
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ].join('');
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
}

let open: { upstream: Server; proxy: RunningProxy } | undefined;
afterEach(async () => {
  await open?.proxy.close();
  open?.upstream.close();
  open = undefined;
});

async function start(): Promise<{ proxy: RunningProxy; bodies: Record<string, unknown>[] }> {
  const bodies: Record<string, unknown>[] = [];
  const upstream = createServer(async (request, response) => {
    const body = await readJson(request);
    bodies.push(body);
    const stream = body.stream === true;
    response.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
    response.end(answer(bodies.length === 1, stream));
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const { port } = upstream.address() as AddressInfo;
  const proxy = await startProxy({ upstream: `http://127.0.0.1:${port}`, recall: true });
  open = { upstream, proxy };
  return { proxy, bodies };
}

describe('--recall on Chat Completions with reasoning_content', () => {
  it.each([false, true])("(stream %s) the follow-up keeps the turn's reasoning", async (stream) => {
    const { proxy, bodies } = await start();
    const client = new OpenAI({ apiKey: 'k', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const request = {
      model: 'deepseek-v4-pro',
      // The proxy adds its recall tool to a request that has tools of its own.
      tools: [{ type: 'function' as const, function: { name: 'read_file', parameters: { type: 'object' } } }],
      messages: [{ role: 'user' as const, content: 'What about caching?' }],
    };
    const text = stream
      ? (await client.chat.completions.stream(request).finalChatCompletion()).choices[0]!.message.content
      : (await client.chat.completions.create(request)).choices[0]!.message.content;
    expect(text).toBe('Done.');
    expect(bodies).toHaveLength(2);
    const turn = (bodies[1]!.messages as Record<string, unknown>[]).find(
      (message) => message.role === 'assistant',
    );
    expect(turn).toMatchObject({
      reasoning_content: REASONING.join(''),
      tool_calls: [{ id: 'call_recall_1' }],
    });
  });
});
