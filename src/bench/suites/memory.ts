// The proxy's memory under many sessions and stalled dashboard subscribers (issue #31): a child
// `agent-compact proxy` (as users run it) in front of a bare upstream on 127.0.0.1 that answers
// every request at once, SESSIONS conversations of TURNS requests each, every one compacted and
// archived (low thresholds, the offline summarizer), while STALLED_SUBSCRIBERS clients hold
// `/agent-compact/events` open and never read. Prints the proxy's RSS (from /proc) at start, after
// the subscribers connected, every 500 sessions, and at the end, against the `--max-memory` budget.
// `npm run bench -- memory`; `BENCH_MAX_MEMORY=128MiB npm run bench -- memory` for another budget.
// Then the same traffic once more through a proxy in this process, for what the proxy retains: its
// heap and external memory after a full GC (the RSS also holds garbage V8 has not returned yet).
// Last, eight 25 MB requests at once to an upstream that never answers (`memory-in-flight.ts`), and
// what each of them holds in flight (`memory-per-request-child.ts`).
// Target: the RSS grows by no more than the budget, and what is retained stays within it.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { HEAP_GROWING_PERCENT } from '../../cli/heap-growth.js';
import { chargedMemoryBytes } from '../../cli/memory-reserve.js';
import { parseByteSize } from '../../proxy/upstream/request-body.js';
import { inFlightFigures } from '../memory-in-flight.js';
import { bareUpstream, retainedMiB, withProxyInProcess } from '../memory-measure.js';
import { post } from '../proxy-requests.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 3_000);
const TURNS = 6;
const STALLED_SUBSCRIBERS = 10;
/** Sessions in flight at once: a handful of agents, without starving the shared machine. */
const CONCURRENCY = 8;
/** About 4 kB per tool result: six turns make bodies of up to 25 kB, past the incremental read's 16 KiB. */
const TOOL_OUTPUT = 'export function handler(input) { return compute(input); } // source line\n'.repeat(55);
const BUDGET = process.env.BENCH_MAX_MEMORY ?? '512MiB';

/** The request of `turn` in session `session`: a task, then a tool call and its result per turn. */
function sessionBody(session: number, turn: number): string {
  const messages: unknown[] = [
    { role: 'user', content: `Session ${session}: read the files and fix the bug.` },
  ];
  for (let step = 0; step < turn; step += 1) {
    const id = `toolu_${session}_${step}`;
    messages.push(
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'read', input: { path: `f${step}.ts` } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: `${step} ${TOOL_OUTPUT}` }],
      },
    );
  }
  return JSON.stringify({ model: 'claude-bench', max_tokens: 64, messages });
}

/** The resident set of `pid` in MiB, from /proc/PID/status. */
function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

async function startProxy(
  upstream: string,
  nodeFlags: string[],
): Promise<{ url: string; child: ChildProcess }> {
  const bin = fileURLToPath(new URL('../../cli/bin.js', import.meta.url));
  const args = ['proxy', '--upstream', upstream, '--port', '0', '--mid', '2000', '--hard', '4000'];
  const child = spawn(
    process.execPath,
    [...nodeFlags, bin, ...args, '--summarizer', 'extractive', '--max-memory', BUDGET],
    { stdio: ['ignore', 'pipe', process.env.BENCH_LOG ? 'inherit' : 'ignore'] },
  );
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  const url = /^listening on (\S+)/.exec(chunk.toString('utf8'))?.[1];
  if (!url) throw new Error(`unexpected first line: ${chunk.toString('utf8')}`);
  return { url, child };
}

/** A client that asks for the event stream and never reads a byte of it. */
async function stalledSubscriber(url: URL): Promise<Socket> {
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  socket.pause();
  socket.write(`GET /agent-compact/events HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
  socket.on('error', () => undefined);
  return socket;
}

/** How many of `subscribers` the proxy closed: read now, a closed one ends within a moment. */
async function letGo(subscribers: Socket[]): Promise<number> {
  const closed = await Promise.all(
    subscribers.map((socket) => {
      socket.resume();
      const ended = once(socket, 'close').then(() => true);
      const open = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000).unref());
      return Promise.race([ended, open]).finally(() => socket.destroy());
    }),
  );
  return closed.filter(Boolean).length;
}

/** Sends every session's requests to `url`, `CONCURRENCY` sessions at a time; `onSession` after each. */
async function drive(url: string, onSession: (done: number) => void): Promise<void> {
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let session = next++; session < SESSIONS; session = next++) {
        for (let turn = 1; turn <= TURNS; turn += 1) await post(url, sessionBody(session, turn));
        done += 1;
        onSession(done);
      }
    }),
  );
}

/** The same traffic through a proxy in this process, charging what the CLI's would: what it retains after a GC. */
async function retained(upstream: string): Promise<void> {
  const before = await retainedMiB();
  const maxMemoryBytes = chargedMemoryBytes(parseByteSize(BUDGET, 'BENCH_MAX_MEMORY'));
  await withProxyInProcess(
    { upstream, thresholds: { mid: 2000, hard: 4000 }, maxMemoryBytes },
    async (url) => {
      await drive(url, () => undefined);
      const after = await retainedMiB();
      console.log(
        `in process: heap + external after GC ${before.toFixed(0)} → ${after.toFixed(0)} MiB (+${(after - before).toFixed(0)} MiB; budget ${BUDGET}, charged against ${(maxMemoryBytes / 2 ** 20).toFixed(0)} MiB)`,
      );
    },
  );
}

/** Large sessions at a small budget, in a process of their own (`memory-large-child.ts`). */
const largeChild = fileURLToPath(new URL('../memory-large-child.js', import.meta.url));
/** What one large request in flight holds, in a process of its own (`memory-per-request-child.ts`). */
const perRequestChild = fileURLToPath(new URL('../memory-per-request-child.js', import.meta.url));

/** What one child proxy's run of the traffic came to: its peak RSS and the CPU it used, both from /proc. */
interface ChildRun {
  startMiB: number;
  peakMiB: number;
  cpuSeconds: number;
}

/**
 * Drives the sessions through a child proxy started with `nodeFlags`, printing its RSS as it goes
 * when `verbose`.
 */
async function childRun(upstream: string, nodeFlags: string[], verbose: boolean): Promise<ChildRun> {
  const { url, child } = await startProxy(upstream, nodeFlags);
  try {
    const line = (label: string) => {
      if (verbose) console.log(`${label.padEnd(36)} RSS ${rssMiB(child.pid).toFixed(0)} MiB`);
    };
    const startMiB = rssMiB(child.pid);
    line('proxy started');
    const subscribers = await Promise.all(
      Array.from({ length: STALLED_SUBSCRIBERS }, () => stalledSubscriber(new URL(url))),
    );
    line('subscribers connected');
    let peakMiB = 0;
    await drive(url, (done) => {
      peakMiB = Math.max(peakMiB, rssMiB(child.pid));
      if (done % 500 === 0) line(`after ${done} sessions`);
    });
    line('end');
    const cpuSeconds = cpuSecondsOf(child.pid);
    const released = await letGo(subscribers);
    if (verbose)
      console.log(`peak RSS ${peakMiB.toFixed(0)} MiB; stalled subscribers the proxy let go: ${released}`);
    return { startMiB, peakMiB, cpuSeconds };
  } finally {
    child.kill('SIGTERM');
  }
}

/** User plus system CPU seconds of `pid` so far, from /proc/PID/stat (in clock ticks of 1/100 s). */
function cpuSecondsOf(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function run(): Promise<void> {
  const upstream = await bareUpstream();
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  console.log(
    `--max-memory ${BUDGET}; ${SESSIONS} sessions × ${TURNS} requests; ${STALLED_SUBSCRIBERS} stalled subscribers`,
  );
  try {
    const shipped = await childRun(upstreamUrl, [], true);
    // The baseline: the same command with V8's own heap growth, which the CLI leaves to a user's flag.
    const v8Default = await childRun(upstreamUrl, ['--heap-growing-percent=0'], false);
    const growth = (run: ChildRun) => `+${(run.peakMiB - run.startMiB).toFixed(0)} MiB`;
    console.log(
      `heap growth ${HEAP_GROWING_PERCENT}% (as the CLI runs): peak ${shipped.peakMiB.toFixed(0)} MiB (${growth(shipped)}), CPU ${shipped.cpuSeconds.toFixed(1)} s; ` +
        `V8's default: peak ${v8Default.peakMiB.toFixed(0)} MiB (${growth(v8Default)}), CPU ${v8Default.cpuSeconds.toFixed(1)} s ` +
        `(${(shipped.peakMiB / v8Default.peakMiB).toFixed(2)}× the peak, ${(shipped.cpuSeconds / v8Default.cpuSeconds).toFixed(2)}× the CPU)`,
    );
    await retained(upstreamUrl);
    // On a heap of its own: no earlier proxy's garbage in what it reads.
    const large = spawnSync(process.execPath, ['--expose-gc', largeChild], { encoding: 'utf8' });
    process.stdout.write(large.stdout);
    if (large.status !== 0) throw new Error(`memory-large-child failed: ${large.stderr}`);
  } finally {
    upstream.close();
  }
  await inFlightFigures();
  const perRequest = spawnSync(process.execPath, ['--expose-gc', perRequestChild], { encoding: 'utf8' });
  process.stdout.write(perRequest.stdout);
  if (perRequest.status !== 0) throw new Error(`memory-per-request-child failed: ${perRequest.stderr}`);
}
