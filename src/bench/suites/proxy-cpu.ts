// The proxy's CPU per request, measured finely enough to tell a few percent apart: small streamed
// requests (no compaction) through a bare Node pass-through hop and `agent-compact proxy`, each a
// child process, in rounds that take turns so load moves every side alike; CPU from
// /proc/PID/task/*/schedstat (nanoseconds). With AGENT_COMPACT_BENCH_BASELINE=DIR (a built checkout
// of another commit, as `node scripts/bench-compare.mjs --baseline COMMIT proxy-cpu` sets it), that
// build's proxy takes its turn too, and the suite prints this build ÷ the baseline.
// `npm run bench -- proxy-cpu`. Target: within 10% of the round's starting build.
import path from 'node:path';
import { type RecordedRequest, startScriptedModelServer } from '@agent-compact/testing';
import { cpuMs, startBareHop, startProxyProcess } from '../child-process.js';
import { post, requestBody, smallConversation } from '../proxy-requests.js';
import { percentile } from '../redis-bench-server.js';

/** Requests each process serves before the rounds: V8 optimizes after hundreds of calls. */
const WARM_REQUESTS = 1_500;
const ROUNDS = 7;
/** Requests per process per round: at about 0.5 ms of CPU each, a second of CPU per figure. */
const REQUESTS_PER_ROUND = 2_000;

const median = (values: readonly number[]) => percentile(values, 0.5);

export async function run(): Promise<void> {
  const server = await startScriptedModelServer({ script: () => 'ok', validation: 'off' });
  const baseline = process.env.AGENT_COMPACT_BENCH_BASELINE;
  const sides = [
    { name: 'bare hop', process: await startBareHop(server.url) },
    { name: 'proxy', process: await startProxyProcess(server.url) },
  ];
  if (baseline) {
    const bin = path.resolve(baseline, 'dist', 'cli', 'bin.js');
    sides.push({ name: 'baseline proxy', process: await startProxyProcess(server.url, { bin }) });
  }
  const forget = () => {
    (server.requests as RecordedRequest[]).length = 0;
  };
  const send = async (url: string, count: number, session: number) => {
    for (let index = 0; index < count; index += 1) {
      await post(url, requestBody(smallConversation(session, index % 50), true));
      if (index % 500 === 0) forget();
    }
  };
  try {
    for (const side of sides) await send(side.process.url, WARM_REQUESTS, 1);
    const perRequest = new Map<string, number[]>(sides.map((side) => [side.name, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const side of sides) {
        const before = cpuMs(side.process.child.pid);
        await send(side.process.url, REQUESTS_PER_ROUND, 2 + round);
        const after = cpuMs(side.process.child.pid);
        if (before === undefined || after === undefined) {
          console.log('No /proc on this system: the suite measures nothing here.');
          return;
        }
        perRequest.get(side.name)?.push((after - before) / REQUESTS_PER_ROUND);
      }
    }
    report(perRequest, baseline);
  } finally {
    for (const side of sides) side.process.child.kill('SIGTERM');
    await server.close();
  }
}

function report(perRequest: Map<string, number[]>, baseline: string | undefined): void {
  console.log(
    `Node ${process.version}. CPU per small streamed request (user + system, all threads, from /proc), ${ROUNDS} rounds of ${REQUESTS_PER_ROUND} requests per process, taking turns:`,
  );
  for (const [name, values] of perRequest) {
    console.log(
      `  ${name}: median ${median(values).toFixed(3)} ms (${values.map((v) => v.toFixed(3)).join(', ')})`,
    );
  }
  const of = (name: string) => median(perRequest.get(name) ?? []);
  console.log(`  proxy ÷ bare hop: ${(of('proxy') / of('bare hop')).toFixed(2)}×`);
  if (!baseline) return;
  const rounds = (perRequest.get('proxy') ?? []).map(
    (value, round) => value / (perRequest.get('baseline proxy')?.[round] ?? Number.NaN),
  );
  console.log(`  baseline proxy ÷ bare hop: ${(of('baseline proxy') / of('bare hop')).toFixed(2)}×`);
  console.log(
    `  proxy ÷ baseline proxy (${baseline}): ${(of('proxy') / of('baseline proxy')).toFixed(3)}× (by round: ${rounds.map((ratio) => ratio.toFixed(2)).join(', ')})`,
  );
}
