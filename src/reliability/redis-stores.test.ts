/**
 * The reliability suites against the Redis stores (a private redis-server):
 * - fuzzed sessions: generated conversations compacted through micro, mid and hard (chained) with
 *   the Redis archive; after each step the input rebuilds exactly from the output plus what Redis
 *   lists, and Redis lists exactly what the in-memory store holds for the same run;
 * - load: the 1,000-session driver of `npm run bench -- load` on one Redis store: no item leaks
 *   between sessions, every session rebuilds exactly.
 * (Crash recovery against Redis runs in crash-recovery.test.ts, the fleet in fleet.test.ts.)
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoad } from '../bench/suites/load.js';
import type { ArchiveItem } from '../core/archive/archive-store.js';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { rebuildConversation } from '../core/archive/rebuild.js';
import { createCompactor } from '../core/compactor.js';
import { arbitraryValidConversation } from '../core/conversation/arbitrary-conversation.test-utils.js';
import type { Message } from '../core/model/messages.js';
import { createRedisArchiveStore, type RedisArchiveStore } from '../redis/index.js';
import { skipRedis, startTestRedis } from '../redis/redis-server.test-utils.js';
import type { RedisServer } from '../testing/redis-server.js';

const seed = Number(process.env.FUZZ_SEED ?? 20261130);
const runs = Number(process.env.FUZZ_REDIS_RUNS ?? 2000);
const system = 'You are a coding agent.';

const untimed = ({ createdAt: _, ...item }: ArchiveItem) => item;

let server: RedisServer;
let archive: RedisArchiveStore;
beforeAll(async () => {
  if (skipRedis) return;
  server = await startTestRedis();
  // These suites check what is stored, not how fast: 1,000 sessions at once on a loaded 2-core
  // machine kept Node's event loop from reading a reply within the default 5 s.
  archive = createRedisArchiveStore({ url: server.url, timeoutMs: 60_000 });
});
afterAll(async () => {
  await archive?.close();
  await server?.stop();
});

describe.skipIf(skipRedis)('Redis stores under the reliability suites', () => {
  it(`${runs} fuzzed sessions rebuild exactly from the Redis archive (seed ${seed})`, async () => {
    let session = 0;
    const layers = new Set<string>();
    await fc.assert(
      fc.asyncProperty(arbitraryValidConversation(), async (messages) => {
        const sessionId = `fuzz-${session++}`;
        const memory = createMemoryArchiveStore();
        const settings = {
          thresholds: { mid: 1_000_000, hard: 2_000_000 },
          micro: { cacheAware: false, minTokens: 1, keepTurns: 1 },
          mid: { keepToolResults: 1, maxAssistantChars: 40, maxToolInputTokens: 5 },
          hard: { retryDelayMs: 0, maxAttempts: 1, maxSummaryTokens: 400 },
        } as const;
        const onRedis = createCompactor({ ...settings, archive, sessionId });
        const inMemory = createCompactor({ ...settings, archive: memory, sessionId });
        let current: readonly Message[] = messages;
        let reference: readonly Message[] = messages;
        for (const force of [undefined, 'mid', 'hard'] as const) {
          const options = { system, ...(force ? { force } : {}) };
          const result = await onRedis.maybeCompact(current, options);
          const expected = await inMemory.maybeCompact(reference, options);
          layers.add(result.layer);
          const listed = await archive.list(sessionId);
          expect(result.messages).toEqual(expected.messages);
          // The same items as the memory store's but for the time each compactor stamped.
          expect(listed.map(untimed)).toEqual((await memory.list(sessionId)).map(untimed));
          expect(rebuildConversation(result.messages, listed)).toEqual(messages);
          current = result.messages;
          reference = expected.messages;
        }
      }),
      { numRuns: runs, seed },
    );
    expect([...layers]).toEqual(expect.arrayContaining(['micro', 'mid', 'hard']));
  });

  it('1,000 concurrent sessions on one Redis: no leakage, every session rebuilds', async () => {
    const report = await runLoad({ sessions: 1000, turns: 12, stores: [archive] });
    for (const layer of ['micro', 'mid', 'hard'] as const) expect(report.layers[layer]).toBeGreaterThan(0);
    for (const session of report.sessions) {
      const listed = await archive.list(session.sessionId);
      expect(listed.length, session.sessionId).toBeGreaterThan(0);
      for (const item of listed) expect(item.sessionId).toBe(session.sessionId);
      const markers = new Set(JSON.stringify(listed).match(/S\d+-(?=T\d)/g));
      expect([...markers], session.sessionId).toEqual([`S${session.index}-`]);
      expect(rebuildConversation(session.context, listed)).toEqual(session.original);
    }
    const sorted = [...report.callMilliseconds].sort((a, b) => a - b);
    console.info(
      `load on Redis: 1000 sessions × 12 turns, ${report.turnsPerSecond.toFixed(0)} session-turns/s, ` +
        `p99 compaction call ${sorted[Math.ceil(sorted.length * 0.99) - 1]!.toFixed(1)} ms`,
    );
  });
});
