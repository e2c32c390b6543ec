/**
 * Fleet: 4 worker processes (the BUILT package, dist/) serve 200 sessions turn by turn from one
 * Redis (a private redis-server), each turn on a randomly chosen worker. Once a third of the turns
 * are done, one worker is killed with SIGKILL while it has turns in flight and is restarted; the
 * turns it was serving are retried on another worker, as a client would retry a failed request.
 * Afterwards every session rebuilds exactly from its last context plus the Redis archive, no archive
 * id appears twice, the archive holds the ids one process would have written (nothing a killed call
 * wrote is left over), and every output equals, byte for byte, what one process serving the session
 * alone (in-memory stores) returned.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSystem, loadTurn } from '../bench/suites/load.js';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { rebuildConversation } from '../core/archive/rebuild.js';
import { createCompactor } from '../core/compactor.js';
import type { Message, ProviderUsage } from '../core/model/messages.js';
import { createRedisArchiveStore, type RedisArchiveStore } from '../redis/index.js';
import { skipRedis, startTestRedis } from '../redis/redis-server.test-utils.js';
import type { RedisServer } from '../testing/redis-server.js';
import { builtPackages, hasDist, packageRoot, random } from './reliability.test-utils.js';

const WORKERS = 4;
const SESSIONS = 200;
const TURNS = 16;
const PREFIX = 'fleet:';
const seed = Number(process.env.RELIABILITY_SEED ?? 20261130);
const workerScript = join(packageRoot, 'src/reliability/__fixtures__/fleet-worker.mjs');
const packagesUrl = pathToFileURL(`${builtPackages}/`).href;
/** The same settings as the worker's (fleet-worker.mjs). */
const settings = {
  thresholds: { mid: 1500, hard: 3000 },
  micro: { cacheAware: false },
  hard: { retryDelayMs: 0 },
} as const;

const usageOf = (sent: readonly Message[]): ProviderUsage => ({
  input_tokens: Math.round(JSON.stringify(sent).length / 3.7),
});

interface Reply {
  messages?: Message[];
  layer?: string;
  error?: string;
}

/** One worker process and its requests in flight. */
class Worker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  alive = true;
  private next = 0;
  private readonly pending = new Map<number, { resolve(reply: Reply): void; reject(error: Error): void }>();

  constructor(redisUrl: string) {
    this.child = spawn(process.execPath, [workerScript, packagesUrl, redisUrl, PREFIX], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let markReady!: () => void;
    this.ready = new Promise((resolve) => (markReady = resolve));
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const reply = JSON.parse(line) as Reply & { id?: number; ready?: boolean };
      if (reply.ready) return markReady();
      this.pending.get(reply.id!)?.resolve(reply);
      this.pending.delete(reply.id!);
    });
    this.child.stdin!.on('error', () => {});
    this.child.on('exit', () => {
      this.alive = false;
      for (const { reject } of this.pending.values()) reject(new Error('the worker died'));
      this.pending.clear();
    });
  }

  get inFlight(): number {
    return this.pending.size;
  }

  request(payload: object): Promise<Reply> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin!.write(`${JSON.stringify({ id, ...payload })}\n`);
    });
  }

  stop(): void {
    this.child.stdin!.end();
  }
}

/** The outputs one process serving session `index` alone returns, turn by turn. */
async function singleProcessRun(index: number): Promise<{ outputs: string[]; ids: string[] }> {
  const memory = createMemoryArchiveStore();
  const compactor = createCompactor({ ...settings, archive: memory, sessionId: `s${index}` });
  let context: Message[] = [...loadTurn(index, 0)];
  const outputs: string[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    const options = { system: loadSystem, ...(turn > 1 ? { usage: usageOf(context) } : {}) };
    const result = await compactor.maybeCompact([...context, ...loadTurn(index, turn)], options);
    context = result.messages;
    outputs.push(JSON.stringify(context));
  }
  return { outputs, ids: (await memory.list(`s${index}`)).map((item) => item.id) };
}

let server: RedisServer | undefined;
let archive: RedisArchiveStore | undefined;
const workers: Worker[] = [];
beforeAll(async () => {
  if (skipRedis || !hasDist) return;
  server = await startTestRedis();
  archive = createRedisArchiveStore({ url: server.url, prefix: PREFIX });
});
afterAll(async () => {
  for (const worker of workers) if (worker.alive) worker.stop();
  await archive?.close();
  await server?.stop();
});

describe.skipIf(skipRedis)('fleet', () => {
  it.skipIf(!hasDist)(
    `${WORKERS} workers serve ${SESSIONS} sessions on one Redis, a worker killed mid-run: nothing lost, outputs as one process (seed ${seed})`,
    async () => {
      const next = random(seed);
      for (let slot = 0; slot < WORKERS; slot++) workers.push(new Worker(server!.url));
      await Promise.all(workers.map((worker) => worker.ready));
      const totalTurns = SESSIONS * TURNS;
      let done = 0;
      let retried = 0;
      let killedInFlight = -1;
      let restarted: Promise<void> | undefined;
      const killAt = Math.floor(totalTurns / 3);

      const killAndRestart = async () => {
        const victim = workers[0]!;
        killedInFlight = victim.inFlight;
        victim.child.kill('SIGKILL');
        await new Promise((resolve) => setTimeout(resolve, 200));
        workers[0] = new Worker(server!.url);
        await workers[0].ready;
      };

      /** Sends a turn to a random live worker; a worker that dies under it means a retry elsewhere. */
      const serve = async (payload: object): Promise<Reply> => {
        for (;;) {
          const live = workers.filter((worker) => worker.alive);
          const worker = live[Math.floor(next() * live.length)]!;
          try {
            return await worker.request(payload);
          } catch {
            retried += 1;
          }
        }
      };

      const sessionsRun = Array.from({ length: SESSIONS }, async (_, index) => {
        const sessionId = `s${index}`;
        const original: Message[] = [...loadTurn(index, 0)];
        let context: Message[] = [...original];
        const outputs: string[] = [];
        for (let turn = 1; turn <= TURNS; turn++) {
          const added = loadTurn(index, turn);
          original.push(...added);
          const reply = await serve({
            sessionId,
            messages: [...context, ...added],
            system: loadSystem,
            ...(turn > 1 ? { usage: usageOf(context) } : {}),
          });
          if (reply.error) throw new Error(`${sessionId} turn ${turn}: ${reply.error}`);
          context = reply.messages!;
          outputs.push(JSON.stringify(context));
          done += 1;
          if (done === killAt) restarted = killAndRestart();
        }
        return { sessionId, index, original, context, outputs };
      });
      const results = await Promise.all(sessionsRun);
      await restarted;

      let items = 0;
      const mismatched: string[] = [];
      for (const session of results) {
        const listed = await archive!.list(session.sessionId);
        items += listed.length;
        const ids = listed.map((item) => item.id);
        expect(new Set(ids).size, `${session.sessionId}: an archive id appears twice`).toBe(ids.length);
        expect(rebuildConversation(session.context, listed), session.sessionId).toEqual(session.original);
        const { outputs: alone, ids: aloneIds } = await singleProcessRun(session.index);
        // The same items under the same ids: nothing a killed call wrote is left behind.
        expect(ids, session.sessionId).toEqual(aloneIds);
        // Named by first differing turn (a whole-context diff would bury the report).
        const turn = alone.findIndex((output, index) => output !== session.outputs[index]);
        if (turn !== -1) mismatched.push(`${session.sessionId} from turn ${turn + 1}`);
      }
      console.info(
        `fleet (seed ${seed}): ${WORKERS} workers, ${SESSIONS} sessions × ${TURNS} turns, worker killed with ${killedInFlight} turns in flight, ` +
          `${retried} turns retried on another worker, ${items} archive items, ${mismatched.length} sessions differing from one process`,
      );
      expect(mismatched, 'outputs that differ from one process serving the session alone').toEqual([]);
      // The kill landed while the worker was serving turns, and those turns were retried.
      expect(killedInFlight).toBeGreaterThan(0);
      expect(retried).toBeGreaterThan(0);
    },
  );
});
