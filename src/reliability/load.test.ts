/**
 * Load: 1,000 sessions compacting concurrently in one process, half sharing one file archive
 * store and half one in-memory store (the driver is the `load` benchmark's, src/bench/suites/load.ts).
 * No archive item leaks between sessions: every item listed for a session has its sessionId and
 * only its content (each session's content carries its own marker), the other store holds nothing
 * of it, what is on disk matches, and each session rebuilds exactly. Memory stays bounded: the
 * peak heap is a small multiple of the content the stores must hold, and it all goes once the
 * sessions and stores are dropped.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileArchiveStore } from '../archive/index.js';
import { type LoadReport, runLoad } from '../bench/suites/load.js';
import { rebuildConversation } from '../core/archive/rebuild.js';
import { removeDir, tempDir } from './reliability.test-utils.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

let directory: string | undefined;
afterAll(async () => {
  if (directory) await removeDir(directory);
});

describe('load: 1,000 concurrent sessions on shared stores', () => {
  it('no cross-session leakage, every session rebuilds, memory bounded', async () => {
    directory = await tempDir('agent-compact-load-');
    gc();
    const baseline = getHeapStatistics().used_heap_size;
    let report: LoadReport | undefined = await runLoad({ sessions: 1000, turns: 12, directory });
    const sessionCount = report.sessions.length;
    expect(sessionCount).toBe(1000);
    for (const layer of ['micro', 'mid', 'hard'] as const) expect(report.layers[layer]).toBeGreaterThan(0);

    const { items, contentBytes } = await verify(report, directory);

    const peak = report.peakHeapBytes - baseline;
    // The stores must hold every archived original (each session's whole history at most) next to
    // the live contexts and the test's own copies: a few times the content, never per-call garbage
    // that grows with the session count squared.
    const peakBound = 8 * contentBytes + 64 * 1024 * 1024;
    console.info(
      `load: ${sessionCount} sessions × 12 turns in ${(report.milliseconds / 1000).toFixed(1)} s ` +
        `(${report.turnsPerSecond.toFixed(0)} session-turns/s), layers ${JSON.stringify(report.layers)}, ` +
        `${items} archive items, content ${megabytes(contentBytes)}, peak heap +${megabytes(peak)} (bound ${megabytes(peakBound)})`,
    );
    expect(peak).toBeLessThan(peakBound);

    // Dropping the sessions and stores frees it all: nothing is kept globally.
    report = undefined;
    gc();
    const after = getHeapStatistics().used_heap_size - baseline;
    console.info(`load: heap after dropping everything +${megabytes(after)}`);
    expect(after).toBeLessThan(16 * 1024 * 1024);
  });
});

/** Checks every session against both stores and the disk; returns what the stores hold. */
async function verify(report: LoadReport, directory: string) {
  const { sessions } = report;
  const fileStore = sessions[0]!.archive;
  const memoryStore = sessions[1]!.archive;
  const fromDisk = createFileArchiveStore({ directory });
  let items = 0;
  let contentBytes = 0;
  for (const session of sessions) {
    const listed = await session.archive.list(session.sessionId);
    items += listed.length;
    contentBytes += JSON.stringify(session.original).length;
    expect(listed.length, session.sessionId).toBeGreaterThan(0);
    for (const item of listed) expect(item.sessionId).toBe(session.sessionId);
    // Every marker in the session's archive is its own.
    const markers = new Set(JSON.stringify(listed).match(/S\d+-(?=T\d)/g));
    expect([...markers], session.sessionId).toEqual([`S${session.index}-`]);
    // The other store holds nothing of it; the disk holds what the file store listed.
    const other = session.archive === fileStore ? memoryStore : fileStore;
    expect(await other.list(session.sessionId)).toEqual([]);
    if (session.archive === fileStore) expect(await fromDisk.list(session.sessionId)).toEqual(listed);
    expect(rebuildConversation(session.context, listed)).toEqual(session.original);
  }
  return { items, contentBytes };
}
