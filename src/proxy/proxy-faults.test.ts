import { connect } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ArchiveStore } from '../core/archive/archive-store.js';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';
import { anthropicLoop, toolCallingScript } from './agent-loops.test-utils.js';
import type { RunningProxy } from './proxy-options.js';
import { startProxy } from './proxy-server.js';
import type { ProxyRequestRecord } from './proxy-stats.js';
import { credentialHash } from './session-identity.js';
import { createMemoryProxySessionStore } from './session-store.js';

let server: ScriptedModelServer | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  proxy = undefined;
  server = undefined;
});

describe('usage and failures', () => {
  it.each([false, true])(
    'keeps the usage of each answer (stream %s) to anchor the next count',
    async (stream) => {
      server = await startScriptedModelServer({ script: ['One.', 'Two.'] });
      const store = createMemoryProxySessionStore();
      proxy = await startProxy({ upstream: server.url, store });
      const headers = { 'x-agent-compact-session': 'usage' };
      const anthropic = new Anthropic({
        apiKey: 'k',
        baseURL: proxy.url,
        maxRetries: 0,
        defaultHeaders: headers,
      });
      const request = {
        model: 'm',
        max_tokens: 10,
        messages: [{ role: 'user' as const, content: 'Hello there' }],
      };
      const message = stream
        ? await anthropic.messages.stream(request).finalMessage()
        : await anthropic.messages.create(request);
      expect(
        (await store.load(`key:${credentialHash({ 'x-api-key': 'k' })}:header:usage`))?.usage,
      ).toMatchObject({
        input_tokens: message.usage.input_tokens,
        output_tokens: message.usage.output_tokens,
      });
      const openai = new OpenAI({
        apiKey: 'k',
        baseURL: `${proxy.url}/v1`,
        maxRetries: 0,
        defaultHeaders: { 'x-agent-compact-session': 'chat' },
      });
      const messages = [{ role: 'user' as const, content: 'Hello there' }];
      if (stream) {
        const chunks = await openai.chat.completions.create({
          model: 'm',
          messages,
          stream: true,
          stream_options: { include_usage: true },
        });
        for await (const _chunk of chunks) {
          // drain
        }
      } else {
        await openai.chat.completions.create({ model: 'm', messages });
      }
      expect(
        (await store.load(`key:${credentialHash({ authorization: 'Bearer k' })}:header:chat`))?.usage
          ?.prompt_tokens,
      ).toBeGreaterThan(0);
    },
  );

  it('sends the original request when compaction fails (the archive is down) and says so', async () => {
    server = await startScriptedModelServer({ script: toolCallingScript });
    const memory = createMemoryArchiveStore();
    const failing: ArchiveStore = { ...memory, put: () => Promise.reject(new Error('disk full')) };
    const records: ProxyRequestRecord[] = [];
    const sent: Record<string, unknown>[] = [];
    proxy = await startProxy({
      upstream: server.url,
      thresholds: { mid: 1500, hard: 2500 },
      summarizer: 'extractive',
      archive: failing,
      onRequest: (record) => records.push(record),
    });
    await anthropicLoop(proxy.url, { turns: 8, onRequest: (body) => sent.push(body) });
    const failed = records.findIndex((record) => record.fallback !== undefined);
    expect(failed).toBeGreaterThan(0);
    expect(records[failed]?.fallback).toContain('compaction failed');
    expect(server.requests[failed]?.body.messages).toEqual(sent[failed]?.messages);
    expect(server.requests.every((request) => request.outcome === 'tool-calls')).toBe(true);
  });
});

describe('a session store that fails', () => {
  const request = {
    model: 'claude-test',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'Hello there' }],
  };
  const send = (path: string) =>
    fetch(`${proxy!.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(request),
    });

  it('sends the client’s request as it came when load fails, and says so; count_tokens counts it', async () => {
    server = await startScriptedModelServer({ script: ['Hi.'] });
    const failing = {
      ...createMemoryProxySessionStore(),
      load: () => Promise.reject(new Error('store down')),
    };
    const records: ProxyRequestRecord[] = [];
    proxy = await startProxy({
      upstream: server.url,
      store: failing,
      onRequest: (record) => records.push(record),
    });
    const answered = await send('/v1/messages');
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ content: [{ type: 'text', text: 'Hi.' }] });
    expect(server.requests[0]?.body).toEqual(request);
    expect(records).toMatchObject([
      { status: 200, layer: 'none', fallback: 'session store failed: store down' },
    ]);
    const counted = await send('/v1/messages/count_tokens');
    expect(counted.status).toBe(200);
    expect(server.requests[1]?.body).toEqual(request);
  });

  it('keeps the record of a request whose state save fails after its answer, marked with the failure', async () => {
    server = await startScriptedModelServer({ script: ['Hi.', 'Hi again.'] });
    let saves = 0;
    const failing = {
      ...createMemoryProxySessionStore(),
      save: () => {
        saves++;
        return Promise.reject(new Error('store down'));
      },
    };
    const records: ProxyRequestRecord[] = [];
    const lines: string[] = [];
    let logged!: () => void;
    // The request's own log line, or the proxy error that took its place.
    const done = new Promise<void>((resolve) => {
      logged = resolve;
    });
    proxy = await startProxy({
      upstream: server.url,
      store: failing,
      onRequest: (record) => records.push(record),
      log: (line) => {
        lines.push(line);
        if (/^anthropic |^proxy error/.test(line)) logged();
      },
    });
    const answered = await send('/v1/messages');
    expect(await answered.json()).toMatchObject({ content: [{ type: 'text', text: 'Hi.' }] });
    await done;
    expect(saves).toBe(1);
    expect(records).toMatchObject([{ status: 200, stateNotSaved: 'session store failed: store down' }]);
    expect(records[0]?.fallback).toBeUndefined();
    expect(lines.join('\n')).toContain('state not saved: session store failed: store down');
    expect(lines.join('\n')).not.toContain('proxy error');
    // The proxy goes on serving the session.
    expect((await send('/v1/messages')).status).toBe(200);
  });
});

describe('a request line without a URL', () => {
  it.each(['//[x', 'http://[::1'])('answers GET %s with 400 and goes on serving', async (target) => {
    server = await startScriptedModelServer({ script: ['Still here.'] });
    proxy = await startProxy({ upstream: server.url });
    const { port } = proxy;
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
      );
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('malformed request URL');
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(message.content).toEqual([expect.objectContaining({ text: 'Still here.' })]);
  });
});
