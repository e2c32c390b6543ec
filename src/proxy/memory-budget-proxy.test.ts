import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileArchiveStore } from '../archive/index.js';
import { anthropicLoop, toolCallingScript } from './agent-loops.test-utils.js';
import { getJson, TOKEN } from './dashboard/dashboard.test-utils.js';
import type { MonitoredSession } from './dashboard/monitor.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();
const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
/** Room for one of these sessions (a dozen turns of a few kB, charged about 100 kB), not three. */
const SMALL_BUDGET = 128 * 1024;
let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

/** A proxy with a small memory budget; the first session's first archived item, then later sessions. */
async function firstItemAfterOthers(options: { archive?: ReturnType<typeof createFileArchiveStore> }) {
  const { proxy } = await startProxyOver(toolCallingScript, {
    thresholds: { mid: 1500, hard: 2500 },
    summarizer: 'extractive',
    token: TOKEN,
    maxMemoryBytes: SMALL_BUDGET,
    ...options,
  });
  await anthropicLoop(proxy.url, { turns: 12, task: 'first session' });
  const [first] = await getJson<MonitoredSession[]>(proxy.url, '/agent-compact/sessions');
  const session = await getJson<MonitoredSession>(proxy.url, `/agent-compact/sessions/${first!.id}`);
  const itemId = session.compactions.flatMap((compaction) => compaction.archived)[0];
  expect(itemId).toBeDefined();
  const path = `${proxy.url}/agent-compact/sessions/${first!.id}/items/${itemId}`;
  const before = (await fetch(path, auth)).status;
  for (const task of ['second session', 'third session']) await anthropicLoop(proxy.url, { turns: 12, task });
  return { before, after: (await fetch(path, auth)).status };
}

describe('the proxy within --max-memory', () => {
  it("evicts the least recently used session's compactor and in-memory archive for later sessions", async () => {
    // Memory-only archives lose their items with the session (docs/proxy.md says so).
    expect(await firstItemAfterOthers({})).toEqual({ before: 200, after: 404 });
  });

  it('keeps every archived item of an evicted session with --archive DIR', async () => {
    directory = await mkdtemp(join(tmpdir(), 'budget-archive-'));
    const archive = createFileArchiveStore({ directory, sync: false });
    expect(await firstItemAfterOthers({ archive })).toEqual({ before: 200, after: 200 });
  });
});
