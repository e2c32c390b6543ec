/**
 * Crash recovery: a child process (the BUILT package, `dist/`) grows a deterministic agent session
 * turn by turn, compacting through every layer and archiving to the file store, and is killed with
 * SIGKILL at a random point, 50 times; after each kill a new process resumes the session. After
 * every kill, every original message is either in the persisted context or in the archive: the
 * context plus the archive rebuilds exactly the session the worker was generating, the context is
 * a valid request, and the archive only ever grew (earlier bytes stay a prefix). It runs twice: on
 * the file store, and on the Redis store (a private redis-server) with the worker killed the same way.
 *
 * The folder is on tmpfs (/dev/shm) when there is one: a SIGKILL never loses what was written to
 * the page cache, so tmpfs proves the same as a disk while fsync costs nothing under load. Power
 * loss is out of scope (the store's fsync is what covers it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileArchiveStore } from '../archive/index.js';
import type { ArchiveItem } from '../core/archive/archive-store.js';
import { rebuildConversation } from '../core/archive/rebuild.js';
import { validateMessages } from '../core/conversation/validate.js';
import type { Message } from '../core/model/messages.js';
import { createRedisArchiveStore, type RedisArchiveStore } from '../redis/index.js';
import { skipRedis, startTestRedis } from '../redis/redis-server.test-utils.js';
import type { RedisServer } from '../testing/redis-server.js';
import { crashSession } from './__fixtures__/crash-session.mjs';
import { hasDist, packageRoot, random, removeDir, snapshotPackages } from './reliability.test-utils.js';

const kills = 50;
/** A non-early kill comes 1 to this many turns into the process, so every kill leaves progress. */
const maxTurnsBeforeKill = 3;
const seed = Number(process.env.RELIABILITY_SEED ?? 20261130);
const worker = join(packageRoot, 'src/reliability/__fixtures__/crash-worker.mjs');
const sessionId = 'crash-session';

interface RunReport {
  turns: number;
  layers: string[];
  sawReady: boolean;
  signal: NodeJS.Signals | null;
  code: number | null;
  stderr: string;
}

/**
 * Starts the worker and kills it `afterMs` after it reports its `afterTurns`-th turn (or after spawn
 * when `early`). Counting turns, not milliseconds, keeps the work done between kills the same under
 * any load; the delay still lands the kill at a random point of the turn under way.
 */
function runWorker(
  packagesUrl: string,
  directory: string,
  maxTurns: number,
  backend: Backend,
  kill?: { afterMs: number; early: boolean; afterTurns: number },
) {
  return new Promise<RunReport>((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      [worker, packagesUrl, directory, sessionId, String(maxTurns), ...backend.workerArgs],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const report: RunReport = { turns: 0, layers: [], sawReady: false, signal: null, code: null, stderr: '' };
    let buffer = '';
    const arm = () => {
      if (kill) setTimeout(() => child.kill('SIGKILL'), kill.afterMs);
    };
    if (kill?.early) arm();
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.startsWith('ready')) {
          report.sawReady = true;
        } else if (line.startsWith('turn ')) {
          report.turns += 1;
          report.layers.push(line.split(' ')[2] ?? '');
          if (kill && !kill.early && report.turns === kill.afterTurns) arm();
        }
        newline = buffer.indexOf('\n');
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      report.stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      report.code = code;
      report.signal = signal;
      resolve(report);
    });
  });
}

/** What a resumed process would find: the persisted context and the archive. */
async function checkNothingLost(directory: string, backend: Backend) {
  let state: { turns: number; messages: Message[] } = { turns: -1, messages: [] };
  const contextFile = join(directory, 'context.json');
  if (existsSync(contextFile)) state = JSON.parse(await readFile(contextFile, 'utf8'));
  const items = await backend.list(directory);
  for (const item of items) expect(item.sessionId).toBe(sessionId);
  const expected = crashSession(state.turns).slice(0, state.turns < 0 ? 0 : undefined);
  const rebuilt = rebuildConversation(state.messages, items);
  const present = new Set(rebuilt.map((message) => JSON.stringify(message)));
  const lost = expected.filter((message) => !present.has(JSON.stringify(message))).length;
  return {
    state,
    rebuilt,
    expected,
    lost,
    items: items.length,
    unreferenced: unreferenced(state.messages, items),
  };
}

/**
 * Archive items the saved context does not reach (directly or through other items): written by a
 * turn whose context was never saved, i.e. the kill landed between an archive append and the save.
 */
function unreferenced(messages: readonly Message[], items: readonly ArchiveItem[]): number {
  const byId = new Map(items.map((item) => [item.id, item]));
  const reached = new Set<string>();
  const pending = [JSON.stringify(messages)];
  while (pending.length > 0) {
    for (const [, id] of pending.pop()!.matchAll(/\b(r\d+)\b/g)) {
      const item = id === undefined ? undefined : byId.get(id);
      if (!item || reached.has(item.id)) continue;
      reached.add(item.id);
      pending.push(JSON.stringify(item));
    }
  }
  return items.length - reached.size;
}

/** Where the worker archives: the file store (the default) or a Redis store. */
interface Backend {
  name: string;
  /** Extra worker arguments. */
  workerArgs: string[];
  list(directory: string): Promise<ArchiveItem[]>;
  /** What the store holds, as text that may only grow at its end (nothing rewritten). */
  bytes(directory: string): Promise<string>;
}

const fileBackend: Backend = {
  name: 'file store',
  workerArgs: [],
  list: (directory) => createFileArchiveStore({ directory: join(directory, 'archive') }).list(sessionId),
  async bytes(directory) {
    const file = join(directory, 'archive', `${sessionId}.jsonl`);
    return existsSync(file) ? readFile(file, 'latin1') : '';
  },
};

let server: RedisServer | undefined;
let redisArchive: RedisArchiveStore | undefined;
const redisBackend: Backend = {
  name: 'Redis store',
  get workerArgs() {
    return [server!.url];
  },
  list: () => redisArchive!.list(sessionId),
  bytes: async () =>
    (await redisArchive!.list(sessionId)).map((item) => `${JSON.stringify(item)}\n`).join(''),
};

let directory: string | undefined;
afterAll(async () => {
  if (directory) await removeDir(directory);
  await redisArchive?.close();
  await server?.stop();
});

describe.each([
  { backend: fileBackend, skip: false },
  { backend: redisBackend, skip: skipRedis },
])('crash recovery, $backend.name', ({ backend, skip }) => {
  beforeAll(async () => {
    if (backend !== redisBackend || skip) return;
    server = await startTestRedis();
    redisArchive = createRedisArchiveStore({ url: server.url, prefix: 'crash:' });
  });
  it.skipIf(!hasDist || skip)(
    `survives ${kills} SIGKILLs at random points while compacting and archiving, losing nothing (seed ${seed})`,
    async () => {
      const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
      if (directory) await removeDir(directory);
      directory = await mkdtemp(join(base, 'agent-compact-crash-'));
      // Every process runs the same snapshot of the packages, even if they are rebuilt meanwhile.
      const packagesUrl = await snapshotPackages(directory);
      const sessionDir = join(directory, 'session');
      await mkdir(sessionDir);
      const next = random(seed);
      let survived = 0;
      let lostTotal = 0;
      let turnsDone = 0;
      const layers = new Map<string, number>();
      let previousBytes = '';
      let previousTurns = -1;
      let previousUnreferenced = 0;
      // Kills that landed after a turn archived something and before it saved its context.
      let midTurnKills = 0;
      for (let kill = 0; kill < kills; kill++) {
        const early = next() < 0.1;
        const afterMs = early ? Math.floor(next() * 150) : Math.floor(next() * 120);
        const afterTurns = 1 + Math.floor(next() * maxTurnsBeforeKill);
        const report = await runWorker(packagesUrl, sessionDir, 1_000_000, backend, {
          afterMs,
          early,
          afterTurns,
        });
        if (report.signal !== 'SIGKILL') {
          throw new Error(
            `seed ${seed}, kill ${kill}: the worker exited with ${report.code} instead of being killed\n${report.stderr}`,
          );
        }
        survived += 1;
        turnsDone += report.turns;
        for (const layer of report.layers) layers.set(layer, (layers.get(layer) ?? 0) + 1);
        const check = await checkNothingLost(sessionDir, backend);
        lostTotal += check.lost;
        if (check.unreferenced > previousUnreferenced) midTurnKills += 1;
        previousUnreferenced = check.unreferenced;
        const where = `seed ${seed}, kill ${kill} (${early ? 'early' : `after turn ${afterTurns} of the process`} +${afterMs} ms, turn ${check.state.turns})`;
        expect(check.lost, where).toBe(0);
        expect(check.rebuilt, where).toEqual(check.expected);
        expect(check.state.turns, where).toBeGreaterThanOrEqual(previousTurns);
        if (check.state.messages.length > 0)
          expect(validateMessages(check.state.messages), where).toEqual([]);
        const bytes = await backend.bytes(sessionDir);
        expect(bytes.startsWith(previousBytes), `${where}: the archive was rewritten`).toBe(true);
        previousBytes = bytes;
        previousTurns = check.state.turns;
      }
      // A last process resumes and finishes cleanly.
      const final = await runWorker(packagesUrl, sessionDir, previousTurns + 20, backend);
      expect(final.code, final.stderr).toBe(0);
      const check = await checkNothingLost(sessionDir, backend);
      expect(check.state.turns).toBe(previousTurns + 20);
      expect(check.rebuilt).toEqual(check.expected);
      expect(check.lost).toBe(0);
      // The kills landed while work was going on: every kill after ready let at least one turn
      // finish, and the session grew through every layer.
      expect(check.state.turns).toBeGreaterThan(kills);
      for (const layer of ['micro', 'mid', 'hard']) expect(layers.get(layer) ?? 0).toBeGreaterThan(0);
      console.info(
        `crash recovery, ${backend.name} (seed ${seed}): ${survived} SIGKILLs survived, ${lostTotal} items lost, ` +
          `${midTurnKills} of them between an archive append and the context save, ${turnsDone} turns completed between kills (${[...layers].map(([layer, count]) => `${layer} ${count}`).join(', ')}), ` +
          `final session ${check.expected.length} messages, ${check.items} archive items`,
      );
    },
  );
});
