/**
 * Proxy replicas on one Redis: a conversation whose requests alternate between two proxies sends
 * upstream, byte for byte, what one proxy sends; with Redis down the proxy forwards the client's
 * request uncompacted with a warning, and compacts again once Redis is back.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSummaryRequest, toolCallingScript, toolOutput } from '../proxy/agent-loops.test-utils.js';
import type { RunningProxy } from '../proxy/proxy-options.js';
import { startProxy } from '../proxy/proxy-server.js';
import type { ProxyRequestRecord } from '../proxy/proxy-stats.js';
import type { RedisServer } from '../testing/redis-server.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/scripted-model-server.js';
import {
  createRedisArchiveStore,
  createRedisProxySessionStore,
  createRedisSessionStateStore,
} from './index.js';
import { skipRedis, startTestRedis } from './redis-server.test-utils.js';

const TURNS = 14;
let redis: RedisServer;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  if (!skipRedis) redis = await startTestRedis();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await redis?.stop();
});

/** A proxy replica whose conversations, archive and compactor state live in Redis under `prefix`. */
async function replica(upstream: ScriptedModelServer, prefix: string, warnings: string[] = []) {
  const connection = { url: redis.url, prefix, timeoutMs: 500 };
  const archive = createRedisArchiveStore(connection);
  const stateStore = createRedisSessionStateStore(connection);
  const store = createRedisProxySessionStore({
    ...connection,
    onError: (_error, operation) => warnings.push(`warning: Redis ${operation} failed`),
  });
  const records: ProxyRequestRecord[] = [];
  const proxy: RunningProxy = await startProxy({
    upstream: upstream.url,
    thresholds: { mid: 3000, hard: 6000 },
    summarizer: 'extractive',
    archive,
    stateStore,
    store,
    onRequest: (record) => records.push(record),
  });
  closers.push(
    () => proxy.close(),
    () => archive.close(),
    () => stateStore.close(),
    () => store.close(),
  );
  // Each store answers once its client has reconnected: what the test waits on after a restart.
  const reachable = async () => {
    await archive.list(`${prefix}probe`);
    await stateStore.load(`${prefix}probe`);
    await store.size();
  };
  return { proxy, records, reachable };
}

/** Waits for `probe` to succeed: the clients reconnect on their own backoff schedule. */
async function until(probe: () => Promise<unknown>, attempts = 100): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await probe();
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** An Anthropic tool loop whose turn `t` goes to `baseURLs[pick(t)]`. */
async function loop(
  baseURLs: string[],
  turns: number,
  onTurn?: (turn: number) => Promise<void>,
  pick = (turn: number) => turn % baseURLs.length,
) {
  const clients = baseURLs.map((baseURL) => new Anthropic({ apiKey: 'test-key', baseURL, maxRetries: 0 }));
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Read every file.' }];
  for (let turn = 0; turn < turns; turn++) {
    await onTurn?.(turn);
    const message = await clients[pick(turn)]!.messages.create({
      model: 'claude-test',
      max_tokens: 200,
      system: 'You are a coding agent.',
      tools: [
        { name: 'read_file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
      ],
      messages,
    });
    messages.push({ role: 'assistant', content: message.content });
    const calls = message.content.filter((block) => block.type === 'tool_use');
    messages.push({
      role: 'user',
      content: calls.map((call) => ({
        type: 'tool_result',
        tool_use_id: call.id,
        content: toolOutput(turn),
      })),
    });
  }
  return messages;
}

const upstreamBodies = (server: ScriptedModelServer) =>
  server.requests
    .filter((request) => !isSummaryRequest(request))
    .map((request) => JSON.stringify(request.body));

describe.skipIf(skipRedis)('proxy replicas sharing Redis', () => {
  it('a conversation alternating between two replicas sends upstream exactly what one proxy sends', async () => {
    const alone = await startScriptedModelServer({ script: toolCallingScript });
    const shared = await startScriptedModelServer({ script: toolCallingScript });
    closers.push(
      () => alone.close(),
      () => shared.close(),
    );
    const single = await replica(alone, 'one:');
    const [first, second] = [await replica(shared, 'two:'), await replica(shared, 'two:')];
    await loop([single.proxy.url], TURNS);
    // Runs of turns on each replica: a replica comes back to a session another one moved on.
    await loop(
      [first.proxy.url, second.proxy.url],
      TURNS,
      undefined,
      (turn) => [0, 0, 1, 1, 1, 0, 1][turn % 7]!,
    );
    const layers = [...single.records.map((record) => record.layer)];
    expect(layers.filter((layer) => layer !== 'none').length).toBeGreaterThan(0);
    expect(upstreamBodies(shared)).toEqual(upstreamBodies(alone));
    // Both replicas served turns, compactions included, and none fell back.
    const records = [...first.records, ...second.records];
    expect(first.records.length).toBe(6);
    expect(records.filter((record) => record.layer !== 'none').length).toBe(
      layers.filter((layer) => layer !== 'none').length,
    );
    expect(records.filter((record) => record.fallback)).toEqual([]);
  });

  it('Redis down: requests go on uncompacted with a warning; compaction resumes when it is back', async () => {
    const upstream = await startScriptedModelServer({ script: toolCallingScript });
    closers.push(() => upstream.close());
    const warnings: string[] = [];
    const { proxy, records, reachable } = await replica(upstream, 'down:', warnings);
    let stopped: RedisServer | undefined;
    const downTurns = [8, 9];
    const client = await loop([proxy.url], TURNS, async (turn) => {
      if (turn === downTurns[0]) {
        await redis.stop({ keepData: true });
        stopped = redis;
      }
      if (turn === downTurns.at(-1)! + 1) {
        redis = await startTestRedis({ port: stopped!.port, directory: stopped!.directory });
        // The turn after the restart goes out once every store's client has reconnected.
        await until(reachable);
      }
    });
    const agentRequests = upstream.requests.filter((request) => !isSummaryRequest(request));
    expect(agentRequests).toHaveLength(TURNS);
    for (const turn of downTurns) {
      // Forwarded as the client sent it: the whole history, uncompacted, and answered.
      expect(records[turn]!.status).toBe(200);
      expect(records[turn]!.fallback).toMatch(/compaction failed/);
      expect(agentRequests[turn]!.body.messages).toEqual(
        JSON.parse(JSON.stringify(client.slice(0, 2 * turn + 1))),
      );
    }
    expect(warnings.length).toBeGreaterThan(0);
    expect(records.slice(0, downTurns[0]).filter((record) => record.fallback)).toEqual([]);
    // Back: the conversation compacts again from what Redis kept.
    const after = records.slice(downTurns.at(-1)! + 1);
    expect(after.filter((record) => record.fallback)).toEqual([]);
    expect(after.filter((record) => record.layer !== 'none').length).toBeGreaterThan(0);
    const last = JSON.stringify(agentRequests.at(-1)!.body.messages);
    expect(last.length).toBeLessThan(JSON.stringify(client.slice(0, 2 * (TURNS - 1) + 1)).length);
  });
});
