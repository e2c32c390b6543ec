// The Redis archive store itself, beside the file store: puts per second (one at a time, and 64 in
// flight across sessions) and the latency of `list` on a 5,000-item session and of `get`.
// `npm run bench -- redis`. Needs redis-server (Debian: apt-get install -y redis-server).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedisArchiveStore } from '@agent-compact/redis';
import type { ArchiveItem, ArchiveStore } from 'agent-compact';
import { createFileArchiveStore } from 'agent-compact/archive';
import { percentile, startBenchRedis } from '../redis-bench-server.js';

/** Puts timed one at a time. */
const SEQUENTIAL_PUTS = 2_000;
/** Puts timed with {@link IN_FLIGHT} outstanding, spread over that many sessions. */
const CONCURRENT_PUTS = 10_000;
const IN_FLIGHT = 64;
/** The session size the issue names for list latency. */
const LIST_ITEMS = 5_000;
const LIST_RUNS = 20;
const GET_RUNS = 1_000;
/** About the size of an archived tool result in the replayed agent runs (2 KB). */
const ITEM_TEXT = `${'const value = compute(input); // line of a file the agent read\n'.repeat(32)}`;

const item = (sessionId: string, index: number): ArchiveItem => ({
  id: `r${index}`,
  sessionId,
  kind: 'tool-result',
  createdAt: 1_764_547_200_000,
  toolUseId: `toolu_${index}`,
  toolName: 'read_file',
  block: { type: 'tool_result', tool_use_id: `toolu_${index}`, content: ITEM_TEXT },
});

/** `reader()` gives the store `list` and `get` are timed on (a fresh file store reads the file). */
async function measure(name: string, store: ArchiveStore, reader: () => ArchiveStore): Promise<void> {
  let started = performance.now();
  for (let index = 0; index < SEQUENTIAL_PUTS; index++) await store.put([item('sequential', index)]);
  const sequential = (SEQUENTIAL_PUTS * 1000) / (performance.now() - started);

  started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async (_, lane) => {
      for (let index = next++; index < CONCURRENT_PUTS; index = next++)
        await store.put([item(`lane-${lane}`, index)]);
    }),
  );
  const concurrent = (CONCURRENT_PUTS * 1000) / (performance.now() - started);

  for (let index = 0; index < LIST_ITEMS; index += 100)
    await store.put(Array.from({ length: 100 }, (_, offset) => item('big', index + offset)));
  const lists: number[] = [];
  for (let run = 0; run < LIST_RUNS; run++) {
    const fresh = reader();
    started = performance.now();
    const listed = await fresh.list('big');
    lists.push(performance.now() - started);
    if (listed.length !== LIST_ITEMS) throw new Error(`${name}: listed ${listed.length} items`);
  }
  const gets: number[] = [];
  for (let run = 0; run < GET_RUNS; run++) {
    started = performance.now();
    await store.get('big', `r${(run * 7919) % LIST_ITEMS}`);
    gets.push(performance.now() - started);
  }
  const ms = (values: number[]) =>
    `p50 ${percentile(values, 0.5).toFixed(2)} ms, p99 ${percentile(values, 0.99).toFixed(2)} ms`;
  console.log(
    `${name.padEnd(24)}puts/s ${sequential.toFixed(0)} one at a time, ${concurrent.toFixed(0)} with ${IN_FLIGHT} in flight; ` +
      `list of ${LIST_ITEMS} items ${ms(lists)}; get ${ms(gets)}`,
  );
}

export async function run(): Promise<void> {
  console.log(`items of ${(JSON.stringify(item('s', 0)).length / 1024).toFixed(1)} KB, one per put`);
  for (const sync of [true, false]) {
    const directory = await mkdtemp(join(tmpdir(), 'agent-compact-bench-'));
    // Each list runs on a new store, so it reads the file as another process would, not a cache.
    const open = () => createFileArchiveStore({ directory, sync });
    await measure(`file store (fsync ${sync ? 'on' : 'off'})`, open(), open);
    await rm(directory, { recursive: true, force: true });
  }
  const server = await startBenchRedis();
  if (!server) return;
  const archive = createRedisArchiveStore({ url: server.url });
  try {
    await measure('redis store', archive, () => archive);
  } finally {
    await archive.close();
    await server.stop();
  }
}
