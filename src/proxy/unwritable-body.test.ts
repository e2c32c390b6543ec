import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningProxy } from './proxy-options.js';
import { startProxy } from './proxy-server.js';
import type { ProxyRequestRecord } from './proxy-stats.js';

// A value nested deeper than `JSON.stringify` can write on the stack (`JSON.parse` reads it).
const DEPTH = 50_000;
const deep = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;

let upstream: Server | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await new Promise((resolve) => (upstream ? upstream.close(resolve) : resolve(undefined)));
  proxy = undefined;
  upstream = undefined;
});

/** A bare upstream that keeps the bytes it gets: the scripted server cannot walk such a body. */
async function recordingUpstream(received: string[]): Promise<string> {
  upstream = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      received.push(Buffer.concat(chunks).toString());
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(answerOf(incoming.url)));
    });
  });
  await new Promise<void>((resolve) => upstream?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
}

/** The upstream's answer: a count for `count_tokens`, else a message of the path's API. */
function answerOf(path: string | undefined): unknown {
  if (path?.endsWith('/count_tokens')) return { input_tokens: 7 };
  if (path?.endsWith('/v1/messages')) {
    const content = [{ type: 'text', text: 'ok.' }];
    return {
      id: 'm',
      type: 'message',
      role: 'assistant',
      content,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
  }
  return {
    id: 'c',
    object: 'chat.completion',
    model: 'gpt-test',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** A Chat Completions request past the thresholds whose first user message holds a deep value. */
function deepChatRequest(): string {
  const output = (turn: number) => `output ${turn}\n${'const value = compute(input); // line\n'.repeat(150)}`;
  const messages: unknown[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: [{ type: 'text', text: 'Read every file.', extra: '@DEEP@' }] },
  ];
  for (let turn = 1; turn <= 6; turn += 1) {
    const call = { name: 'read_file', arguments: JSON.stringify({ path: `f${turn}.ts` }) };
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${turn}`, type: 'function', function: call }],
    });
    messages.push({ role: 'tool', tool_call_id: `c${turn}`, content: output(turn) });
  }
  const tools = [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }];
  return JSON.stringify({ model: 'gpt-test', messages, tools }).replace('"@DEEP@"', deep);
}

describe('a request the proxy cannot write back as JSON', () => {
  it.each([false, true])(
    'goes upstream as the client sent it, the fallback named (recall %s)',
    async (recall) => {
      const received: string[] = [];
      const records: ProxyRequestRecord[] = [];
      proxy = await startProxy({
        upstream: await recordingUpstream(received),
        thresholds: { mid: 1500, hard: 3000 },
        summarizer: 'extractive',
        recall,
        onRequest: (record) => records.push(record),
      });
      const body = deepChatRequest();
      const answered = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body,
      });
      expect(answered.status).toBe(200);
      expect(await answered.json()).toMatchObject({ choices: [{ message: { content: 'ok.' } }] });
      expect(received).toEqual([body]);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ status: 200, layer: 'none' });
      expect(records[0]?.fallback).toMatch(/^request could not be written as JSON: /);
    },
  );
});

describe('a first message nested too deep to fingerprint', () => {
  it.each(['/v1/messages', '/v1/messages/count_tokens'])('is forwarded on %s, not a 502', async (path) => {
    const received: string[] = [];
    proxy = await startProxy({ upstream: await recordingUpstream(received), summarizer: 'extractive' });
    // The session key hashes the conversation's first message: this one `JSON.stringify` cannot write.
    const body = JSON.stringify({
      model: 'claude-test',
      max_tokens: 10,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', extra: '@DEEP@' }] }],
    }).replace('"@DEEP@"', deep);
    const answered = await fetch(`${proxy.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body,
    });
    expect(answered.status).toBe(200);
    await answered.text();
    expect(received).toEqual([body]);
  });
});
