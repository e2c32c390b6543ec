// Load: 1,000 agent sessions compacting concurrently in one process, sharing one file archive
// store and one in-memory store (even sessions on the file store, odd ones in memory). Prints the
// throughput (session turns per second), the peak heap while they run, and the heap after.
// `npm run bench -- load`. The reliability suite (src/reliability/load.test.ts) runs the same
// driver and checks that no archive item leaks between sessions.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { createRedisArchiveStore } from '@agent-compact/redis';
import type { ArchiveStore, CompactionLayer, Message } from 'agent-compact';
import { createCompactor, createMemoryArchiveStore } from 'agent-compact';
import { createFileArchiveStore } from 'agent-compact/archive';
import { percentile, startBenchRedis } from '../redis-bench-server.js';

/** Options of {@link runLoad}. */
export interface LoadOptions {
  /** Concurrent sessions. @default 1000 */
  sessions?: number;
  /** Turns each session takes. @default 12 */
  turns?: number;
  /** The folder of the shared file store (a temp folder, removed afterwards, when absent). */
  directory?: string;
  /**
   * The stores the sessions share, session `i` on `stores[i % stores.length]`.
   * @default a file store in `directory` and a memory store
   */
  stores?: readonly ArchiveStore[];
}

/** One session after the run. */
export interface LoadSession {
  sessionId: string;
  index: number;
  /** The whole conversation the session generated. */
  original: Message[];
  /** The context after its last turn. */
  context: Message[];
  archive: ArchiveStore;
}

/** What {@link runLoad} measured. */
export interface LoadReport {
  sessions: LoadSession[];
  turns: number;
  milliseconds: number;
  turnsPerSecond: number;
  peakHeapBytes: number;
  heapBeforeBytes: number;
  /** Milliseconds of each compaction call (`maybeCompact`), unordered. */
  callMilliseconds: number[];
  layers: Record<CompactionLayer, number>;
  /** The shared file store's folder (already removed when the run made it). */
  directory: string;
}

export const loadSystem = 'You are a coding agent. Fix what the user asks, then stop.';

/** The marker every piece of session `index`'s content carries, so a leak is visible. */
export const sessionMarker = (index: number) => `S${index}-`;

/** The messages turn `turn` of session `index` adds (turn 0 is the task). */
export function loadTurn(index: number, turn: number): Message[] {
  const mark = `${sessionMarker(index)}T${turn}`;
  if (turn === 0)
    return [{ role: 'user', content: `Fix the failing tests of service ${mark} without API changes.` }];
  const id = `toolu_${index}_${turn}`;
  const lines = 10 + ((index * 31 + turn * 7) % 40);
  const output = Array.from(
    { length: lines },
    (_, line) => `${mark} ${line + 1}\tconst v${line} = f(${line});`,
  ).join('\n');
  return [
    {
      role: 'assistant',
      content: [
        {
          type: 'text',
          // Every fourth turn thinks aloud at length, which the mid layer cuts to its first sentences.
          text:
            turn % 4 === 0
              ? `Turn ${mark}: the assertion fails because the fixture is stale. ${'It compares the cached totals with the recomputed ones, and they drift when the clock moves. '.repeat(8)}`
              : `Turn ${mark}: reading the next module to find the failing assertion.`,
        },
        {
          type: 'tool_use',
          id,
          name: turn % 2 === 0 ? 'read_file' : 'bash',
          input: { path: `${mark}/module.ts` },
        },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] },
  ];
}

/** Runs the sessions concurrently and measures them. */
export async function runLoad({
  sessions = 1000,
  turns = 12,
  directory,
  stores,
}: LoadOptions = {}): Promise<LoadReport> {
  const folder = directory ?? (await mkdtemp(join(tmpdir(), 'agent-compact-load-')));
  // fsync is the crash suite's subject; here it would only measure the disk.
  const shared = stores ?? [
    createFileArchiveStore({ directory: folder, sync: false }),
    createMemoryArchiveStore(),
  ];
  const callMilliseconds: number[] = [];
  const layers: Record<CompactionLayer, number> = { none: 0, micro: 0, mid: 0, hard: 0 };
  const heapBeforeBytes = getHeapStatistics().used_heap_size;
  let peakHeapBytes = heapBeforeBytes;
  const sampler = setInterval(() => {
    peakHeapBytes = Math.max(peakHeapBytes, getHeapStatistics().used_heap_size);
  }, 5);
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: sessions }, async (_, index): Promise<LoadSession> => {
      const archive = shared[index % shared.length]!;
      const sessionId = `load-${index}`;
      const compactor = createCompactor({
        archive,
        sessionId,
        thresholds: { mid: 1500, hard: 3000 },
        micro: { cacheAware: false },
        hard: { retryDelayMs: 0 },
      });
      const original: Message[] = [...loadTurn(index, 0)];
      let context: Message[] = [...original];
      for (let turn = 1; turn <= turns; turn++) {
        const added = loadTurn(index, turn);
        original.push(...added);
        const callStarted = performance.now();
        const result = await compactor.maybeCompact([...context, ...added], { system: loadSystem });
        callMilliseconds.push(performance.now() - callStarted);
        layers[result.layer] += 1;
        context = result.messages;
      }
      return { sessionId, index, original, context, archive };
    }),
  );
  const milliseconds = performance.now() - started;
  clearInterval(sampler);
  peakHeapBytes = Math.max(peakHeapBytes, getHeapStatistics().used_heap_size);
  if (directory === undefined) await rm(folder, { recursive: true, force: true });
  return {
    sessions: results,
    turns: sessions * turns,
    milliseconds,
    turnsPerSecond: (sessions * turns * 1000) / milliseconds,
    peakHeapBytes,
    heapBeforeBytes,
    callMilliseconds,
    layers,
    directory: folder,
  };
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function run(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await runMixed(gc);
  await compareStores(gc);
}

/** The historical run: half the sessions on one file store, half on one memory store. */
async function runMixed(gc: (() => void) | undefined): Promise<void> {
  const report = await runLoad();
  const sessions = report.sessions.length;
  console.log(`sessions (concurrent)   ${sessions} (half on one file store, half on one memory store)`);
  console.log(`turns                   ${report.turns} (${report.turns / sessions} per session)`);
  console.log(
    `layers                  ${Object.entries(report.layers)
      .map(([layer, count]) => `${layer} ${count}`)
      .join(', ')}`,
  );
  console.log(`time                    ${(report.milliseconds / 1000).toFixed(2)} s`);
  console.log(`throughput              ${report.turnsPerSecond.toFixed(0)} session-turns/s`);
  console.log(`heap before             ${megabytes(report.heapBeforeBytes)}`);
  console.log(`peak heap               ${megabytes(report.peakHeapBytes)}`);
  report.sessions.length = 0;
  gc?.();
  console.log(
    `heap after (sessions dropped${gc ? ', after gc' : ''})  ${megabytes(getHeapStatistics().used_heap_size)}`,
  );
}

const latency = (report: LoadReport) =>
  `p50 ${percentile(report.callMilliseconds, 0.5).toFixed(1)} ms, p99 ${percentile(report.callMilliseconds, 0.99).toFixed(1)} ms`;

/** All 1,000 sessions on one file store, then all on one Redis: throughput and call latency. */
async function compareStores(gc: (() => void) | undefined): Promise<void> {
  console.log('\nthe same 1,000 sessions on one store each (compaction call latency includes the store)');
  gc?.();
  const file = await runLoad();
  console.log(`file store (no fsync)   ${file.turnsPerSecond.toFixed(0)} session-turns/s, ${latency(file)}`);
  file.sessions.length = 0;
  const server = await startBenchRedis();
  if (!server) return;
  const archive = createRedisArchiveStore({ url: server.url });
  try {
    gc?.();
    const redis = await runLoad({ stores: [archive] });
    console.log(
      `redis store             ${redis.turnsPerSecond.toFixed(0)} session-turns/s, ${latency(redis)} (redis-server on 127.0.0.1)`,
    );
  } finally {
    await archive.close();
    await server.stop();
  }
}
