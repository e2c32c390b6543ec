import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileArchiveStore } from '../archive/index.js';
import { type ScriptedModelServer, type ScriptStep, startScriptedModelServer } from '../testing/index.js';
import {
  anthropicLoop,
  isSummaryRequest,
  openAIChatLoop,
  toolCallingScript,
} from './agent-loops.test-utils.js';
import type { RunningProxy } from './proxy-options.js';
import { startProxy } from './proxy-server.js';
import type { ProxyRequestRecord } from './proxy-stats.js';
import { createSameSummaryModel } from './same-summarizer.js';
import { createUpstreamClient } from './upstream/upstream-client.js';

const secretKey = 'sk-ant-SECRET-key-0123456789';

let server: ScriptedModelServer | undefined;
let proxy: RunningProxy | undefined;
let directory: string | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  if (directory) await rm(directory, { recursive: true, force: true });
  proxy = undefined;
  server = undefined;
  directory = undefined;
});

async function startWithSame(
  script: Parameters<typeof startScriptedModelServer>[0]['script'] = toolCallingScript,
) {
  server = await startScriptedModelServer({ script });
  directory = await mkdtemp(join(tmpdir(), 'proxy-same-'));
  const lines: string[] = [];
  const records: ProxyRequestRecord[] = [];
  proxy = await startProxy({
    upstream: server.url,
    thresholds: { mid: 1500, hard: 2500 },
    archive: createFileArchiveStore({ directory }),
    log: (line) => lines.push(line),
    onRequest: (record) => records.push(record),
  });
  return { server, proxy, lines, records, directory };
}

async function archiveText(folder: string): Promise<string> {
  const files = await readdir(folder);
  const texts = await Promise.all(files.map((file) => readFile(join(folder, file), 'utf8')));
  return texts.join('\n');
}

describe('the same summarizer', () => {
  it('Anthropic: summarizes with the client key, model, system and tools, so the cached prefix is reused', async () => {
    const { server, records } = await startWithSame();
    await anthropicLoop(proxy!.url, { turns: 12, apiKey: secretKey });
    expect(records.some((record) => record.layer === 'hard')).toBe(true);
    const summary = server.requests.find(isSummaryRequest);
    const agent = server.requests.find((request) => !isSummaryRequest(request));
    expect(summary?.outcome).toBe('text');
    expect(summary?.body.model).toBe('claude-test');
    expect(summary?.body.system).toEqual(agent?.body.system);
    expect(summary?.body.tools).toEqual(agent?.body.tools);
    expect((summary!.body.messages as unknown[])[0]).toEqual((agent!.body.messages as unknown[])[0]);
    expect(
      server.requests.filter((request) => request.outcome !== 'tool-calls' && request.outcome !== 'text'),
    ).toEqual([]);
  });

  it('OpenAI chat: summarizes through the client’s own API', async () => {
    const { server, records } = await startWithSame();
    await openAIChatLoop(`${proxy!.url}/v1`, { turns: 12, apiKey: secretKey });
    expect(records.some((record) => record.layer === 'hard')).toBe(true);
    expect(server.requests.find(isSummaryRequest)).toMatchObject({
      path: '/v1/chat/completions',
      outcome: 'text',
    });
  });

  it('never writes the key to logs, records, archives or errors, even when the summary call fails', async () => {
    const failingSummaries = (request: Parameters<typeof toolCallingScript>[0]) =>
      // A 429 that asks for no wait: each summary call is tried three times without a backoff.
      isSummaryRequest(request)
        ? { type: 'rate-limit' as const, retryAfterSeconds: 0 }
        : toolCallingScript(request);
    const { lines, records, directory } = await startWithSame(failingSummaries);
    await anthropicLoop(proxy!.url, { turns: 12, apiKey: secretKey });
    await openAIChatLoop(`${proxy!.url}/v1`, { turns: 12, apiKey: secretKey });
    const everything = [lines.join('\n'), JSON.stringify(records), await archiveText(directory)].join('\n');
    expect(everything.length).toBeGreaterThan(1000);
    expect(everything).not.toContain(secretKey);
    expect(everything).not.toContain('SECRET');
  });
});

describe('a summary call that fails', () => {
  it('is reported on the record and the log line of the request whose summary was written offline', async () => {
    const failingSummaries = (request: Parameters<typeof toolCallingScript>[0]) =>
      // A 429 that asks for no wait: each summary call is tried three times without a backoff.
      isSummaryRequest(request)
        ? { type: 'rate-limit' as const, retryAfterSeconds: 0 }
        : toolCallingScript(request);
    const { server, lines, records } = await startWithSame(failingSummaries);
    await anthropicLoop(proxy!.url, { turns: 12, apiKey: secretKey });
    const hard = records.filter((record) => record.layer === 'hard');
    expect(hard.length).toBeGreaterThan(0);
    expect(server.requests.filter(isSummaryRequest).length).toBeGreaterThan(0);
    // The extractive summary went upstream: no client fallback, but the model's failure is named.
    expect(hard[0]?.fallback).toBeUndefined();
    expect(hard[0]?.modelFallback).toMatch(
      /^summary model same:same failed after 1 attempt\(s\): .*\(HTTP 429\) after 3 tries: .*answered 429/,
    );
    expect(lines.some((line) => line.includes(`(model fallback: ${hard[0]?.modelFallback})`))).toBe(true);
    // Only the request whose compaction fell back says so.
    const named = records.filter((record) => record.modelFallback !== undefined);
    expect(named.map((record) => record.layer)).toEqual(named.map(() => 'hard'));
  });
});

describe('a summary call that fails once', () => {
  it.each([
    ['a 429', { type: 'rate-limit', retryAfterSeconds: 0 }],
    ['a 529 overloaded', { type: 'server-error', status: 529 }],
    ['a 500', { type: 'server-error' }],
    ['a dropped connection', { type: 'drop-connection' }],
  ] as const)('is tried again after %s, and the model’s summary goes upstream', async (_name, failure) => {
    let failed = false;
    const failingOnce = (request: Parameters<typeof toolCallingScript>[0]): ScriptStep => {
      if (!isSummaryRequest(request) || failed) return toolCallingScript(request);
      failed = true;
      return failure;
    };
    const { server, records } = await startWithSame(failingOnce);
    await anthropicLoop(proxy!.url, { turns: 6, apiKey: secretKey });
    const summaries = server.requests.filter(isSummaryRequest);
    expect(summaries.map((request) => request.outcome)).toEqual([failure.type, 'text']);
    expect(summaries[1]?.body).toEqual(summaries[0]?.body);
    const hard = records.find((record) => record.layer === 'hard');
    expect(hard?.modelFallback).toBeUndefined();
    const after = server.requests[server.requests.indexOf(summaries[1]!) + 1];
    expect(JSON.stringify(after?.body.messages)).toContain('Reading.');
  });
});

describe('the same summarizer with extended thinking', () => {
  it('Anthropic: turns thinking off for the summary request, so a tool turn without its thinking is valid', async () => {
    server = await startScriptedModelServer({ script: ['## Summary\nDone.'] });
    const model = createSameSummaryModel(createUpstreamClient({ timeoutMs: 10_000 }), {
      api: 'anthropic',
      url: new URL(`${server!.url}/v1/messages`),
      headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: {
        model: 'claude-test',
        max_tokens: 32_000,
        thinking: { type: 'enabled', budget_tokens: 4096 },
        context_management: { edits: [{ type: 'clear_thinking_20251015' }] },
        messages: [],
      },
    });
    const result = await model.summarize({
      messages: [{ role: 'user', content: 'Write a dense summary of the work so far.' }],
      maxOutputTokens: 1000,
    });
    expect(result.text).toContain('Done.');
    const sent = server.requests[0]!.body;
    expect(sent.thinking).toBeUndefined();
    expect(sent.context_management).toBeUndefined();
    expect(sent.max_tokens).toBe(1000);
  });
});

describe('the same summarizer for an agent that thinks', () => {
  it('Anthropic: keeps thinking on and the thinking blocks in, so the summary reads the agent’s cached messages', async () => {
    const { server, records } = await startWithSame();
    await anthropicLoop(proxy!.url, { turns: 12, stream: true, thinking: true });
    expect(records.some((record) => record.layer === 'hard')).toBe(true);
    const index = server.requests.findIndex(isSummaryRequest);
    const summary = server.requests[index]!.body;
    const previous = server.requests[index - 1]!.body;
    expect(summary.thinking).toEqual({ type: 'adaptive' });
    expect(summary.context_management).toEqual(previous.context_management);
    expect(summary.max_tokens).toBe(32_000);
    // The summary's history is the request before it, message for message, thinking included.
    const sent = summary.messages as unknown[];
    expect(JSON.stringify(sent)).toContain('"signature":"scripted-signature-');
    expect(sent.slice(0, -1)).toEqual((previous.messages as unknown[]).slice(0, sent.length - 1));
  });
});
