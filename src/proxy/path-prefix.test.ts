import { createServer, type Server, request as upstreamRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';
import { anthropicLoop, openAIChatLoop, responsesLoop, toolCallingScript } from './agent-loops.test-utils.js';
import type { RunningProxy } from './proxy-options.js';
import { startProxy } from './proxy-server.js';
import type { ProxyRequestRecord } from './proxy-stats.js';

const PREFIX = '/gateway/team-a';

let server: ScriptedModelServer | undefined;
let gateway: Server | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await new Promise<void>((resolve) => (gateway ? gateway.close(() => resolve()) : resolve()));
  await server?.close();
  proxy = undefined;
  gateway = undefined;
  server = undefined;
});

/** A gateway that serves the provider APIs under `PREFIX` (as OpenRouter serves /api/v1/…). */
async function startGateway(target: string, paths: string[]): Promise<string> {
  gateway = createServer((incoming, response) => {
    paths.push(incoming.url ?? '');
    const path = (incoming.url ?? '').replace(PREFIX, '');
    const outgoing = upstreamRequest(
      `${target}${path}`,
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    incoming.pipe(outgoing);
  });
  await new Promise<void>((resolve) => gateway!.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
}

async function start(): Promise<{ records: ProxyRequestRecord[]; paths: string[] }> {
  server = await startScriptedModelServer({ script: toolCallingScript });
  const paths: string[] = [];
  const upstream = await startGateway(server.url, paths);
  const records: ProxyRequestRecord[] = [];
  proxy = await startProxy({
    upstream,
    thresholds: { mid: 3000, hard: 6000 },
    summarizer: 'extractive',
    onRequest: (record) => records.push(record),
  });
  return { records, paths };
}

describe('base URLs with a path prefix', () => {
  it.each([
    ['anthropic', '/v1/messages', (url: string) => anthropicLoop(url, { turns: 12 })],
    ['openai', '/v1/chat/completions', (url: string) => openAIChatLoop(`${url}/v1`, { turns: 12 })],
    ['responses', '/v1/responses', (url: string) => responsesLoop(`${url}/v1`, { turns: 12 })],
  ] as const)(
    '%s: compacts under the prefix and forwards the path unchanged',
    async (api, endpoint, loop) => {
      const { records, paths } = await start();
      await loop(`${proxy!.url}${PREFIX}`);
      expect(paths).toEqual(Array(12).fill(`${PREFIX}${endpoint}`));
      expect(records.map((record) => record.api)).toEqual(Array(12).fill(api));
      expect(records.some((record) => record.layer !== 'none')).toBe(true);
      expect(server!.requests.map((request) => request.outcome)).toEqual(Array(12).fill('tool-calls'));
    },
  );
});
