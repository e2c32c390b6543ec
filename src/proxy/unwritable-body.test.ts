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
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          model: 'gpt-test',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok.' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => upstream?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
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
