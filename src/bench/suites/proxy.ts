// Proxy overhead: the scripted model server answered directly and through `agent-compact proxy`
// (a child process, as users run it) in the same run. Prints the added latency (p50, p99) for small
// and 100k-token requests that need no compaction, the time to the first streamed byte, requests
// per second with 50 concurrent sessions, the proxy's memory per session (measured in-process), and
// five parallel conversations with the same first message against five distinct ones (ratio ≤ 1.5),
// and the small-request and first-byte rows again on the Gemini API (`:generateContent`,
// `:streamGenerateContent?alt=sse`), and the first-byte row against a bare Node pass-through hop
// (the floor any proxy process pays on the machine), with the CPU each of the two used per request,
// and the first-byte row once more with an agent-sized system prompt and tool list. The first row
// is the proxy just started (cold); every later row runs after each process served
// WARM_REQUESTS requests, as a proxy that runs all day has.
// `npm run bench -- proxy`. Targets (warm): p50 added ≤ 2 ms on a small request, first byte within 1 ms.
import {
  type RecordedRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@agent-compact/testing';
import { startProxy } from '../../proxy/index.js';
import { cpuMs, startBareHop, startProxyProcess } from '../child-process.js';
import {
  agent,
  agentSizedRequestBody,
  anthropicRoute,
  geminiRequestBody,
  geminiRoute,
  geminiStreamRoute,
  LARGE_REQUEST_TOKENS,
  largeConversation,
  post,
  type Route,
  requestBody,
  smallConversation,
  warmUpRequest,
} from '../proxy-requests.js';

/** Requests per latency sample; enough for a stable p99. */
const SAMPLES_SMALL = 400;
const SAMPLES_LARGE = 60;
const SAMPLES_STREAM = 200;
/** Warm-up requests before each measurement (keep-alive sockets, the row's own code paths). */
const WARMUP = 30;
/**
 * Requests of every kind each process (proxy, bare hop, the bench itself) serves before the warm
 * rows: V8 optimizes a function only after hundreds of calls, and on Node 20 (no Maglev) the proxy's
 * first-byte time falls for about 1,000 requests before it settles. A proxy that runs all day is
 * in that state; the cold row shows a proxy just started, as a `wrap` session's first minutes.
 */
const WARM_REQUESTS = 1_000;
const CONCURRENT_SESSIONS = 50;
const REQUESTS_PER_SESSION = 20;
/** Sessions created for the memory figure, each with a conversation of about 5k tokens. */
const MEMORY_SESSIONS = 500;
/** Parallel conversations for the session-isolation figure, each of a few turns. */
const PARALLEL_CONVERSATIONS = 5;
const PARALLEL_TURNS = 3;
/** How long the scripted model takes per answer there: long enough that queueing shows. */
const ANSWER_DELAY_MS = 150;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

/** Interleaves direct and proxied requests so both see the same machine load. */
async function compare(
  direct: string,
  proxied: string,
  samples: number,
  bodyFor: (index: number) => string,
  field: 'first' | 'total',
  route: Route = anthropicRoute,
  names: [string, string] = ['direct', 'proxy'],
) {
  const times = { direct: [] as number[], proxy: [] as number[] };
  for (let index = 0; index < WARMUP + samples; index += 1) {
    const body = bodyFor(index);
    const a = await post(direct, body, {}, route);
    const b = await post(proxied, body, {}, route);
    if (index < WARMUP) continue;
    times.direct.push(a[field]);
    times.proxy.push(b[field]);
  }
  const row = (name: string, values: number[]) =>
    `${name} p50 ${percentile(values, 0.5).toFixed(2)} ms, p99 ${percentile(values, 0.99).toFixed(2)} ms`;
  const added = (fraction: number) =>
    (percentile(times.proxy, fraction) - percentile(times.direct, fraction)).toFixed(2);
  console.log(
    `  ${row(names[0], times.direct)}; ${row(names[1], times.proxy)}; added p50 ${added(0.5)} ms, p99 ${added(0.99)} ms`,
  );
}

/**
 * The first-byte comparison on the proxy just started, for its first {@link WARM_REQUESTS} requests:
 * the added p50 of each stretch of {@link SAMPLES_STREAM}, which falls as V8 optimizes. A bare hop
 * just started gets the same requests beside it, so the share of the fall that is any Node process
 * warming up shows.
 */
async function coldCurve(server: ScriptedModelServer, proxied: string): Promise<void> {
  const bare = await startBareHop(server.url);
  const added = { proxy: [] as string[], bare: [] as string[] };
  try {
    for (let start = 0; start < WARM_REQUESTS; start += SAMPLES_STREAM) {
      const times = { direct: [] as number[], proxy: [] as number[], bare: [] as number[] };
      for (let index = start; index < start + SAMPLES_STREAM; index += 1) {
        const body = requestBody(smallConversation(7, index % 50), true);
        times.direct.push((await post(server.url, body)).first);
        times.proxy.push((await post(proxied, body)).first);
        times.bare.push((await post(bare.url, body)).first);
      }
      forgetRequests(server);
      const stretch = `${start + 1}–${start + SAMPLES_STREAM}`;
      const p50 = (values: number[]) => (percentile(values, 0.5) - percentile(times.direct, 0.5)).toFixed(2);
      added.proxy.push(`${stretch} ${p50(times.proxy)} ms`);
      added.bare.push(`${stretch} ${p50(times.bare)} ms`);
    }
  } finally {
    bare.child.kill('SIGTERM');
  }
  console.log('Cold: time to first streamed byte of a process just started, added p50 by its requests:');
  console.log(`  proxy:    ${added.proxy.join(', ')}`);
  console.log(`  bare hop: ${added.bare.join(', ')}`);
}

/** Sends {@link WARM_REQUESTS} requests of every kind to each origin in turn; nothing is measured. */
async function warmUp(server: ScriptedModelServer, origins: string[]): Promise<void> {
  for (let index = 0; index < WARM_REQUESTS; index += 1) {
    const { body, route } = warmUpRequest(index);
    for (const origin of origins) await post(origin, body, {}, route);
    if (index % 100 === 0) forgetRequests(server);
  }
  forgetRequests(server);
}

async function throughput(origin: string): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENT_SESSIONS }, async (_, session) => {
      for (let turn = 0; turn < REQUESTS_PER_SESSION; turn += 1) {
        await post(origin, requestBody(smallConversation(session, turn)));
      }
    }),
  );
  return (CONCURRENT_SESSIONS * REQUESTS_PER_SESSION * 1000) / (performance.now() - started);
}

/** The small-request comparison again with the dashboard open (its event stream read) and `--otel`. */
async function compareWatched(server: ScriptedModelServer): Promise<void> {
  const direct = server.url;
  const { url, child } = await startProxyProcess(direct, { extra: ['--otel'] });
  const watcher = new AbortController();
  try {
    await (await fetch(`${url}/agent-compact/`)).text();
    const events = await fetch(`${url}/agent-compact/events`, { signal: watcher.signal });
    // Read the stream as a browser would, so every request's update is written and consumed.
    void events.body?.pipeTo(new WritableStream()).catch(() => undefined);
    await warmUp(server, [url]);
    console.log(`\nSmall request with the dashboard open and --otel, ${SAMPLES_SMALL} samples:`);
    await compare(
      direct,
      url,
      SAMPLES_SMALL,
      (index) => requestBody(smallConversation(2, index % 50)),
      'total',
    );
  } finally {
    watcher.abort();
    child.kill('SIGTERM');
  }
}

/** The small-request and first-byte rows on the Gemini API. */
async function compareGemini(direct: string, proxied: string): Promise<void> {
  console.log(`\nGemini small request (:generateContent, no compaction), ${SAMPLES_SMALL} samples:`);
  await compare(
    direct,
    proxied,
    SAMPLES_SMALL,
    (index) => geminiRequestBody(4, index % 50),
    'total',
    geminiRoute,
  );
  console.log(
    `\nGemini time to first streamed byte (:streamGenerateContent?alt=sse), ${SAMPLES_STREAM} samples:`,
  );
  await compare(
    direct,
    proxied,
    SAMPLES_STREAM,
    (index) => geminiRequestBody(5, index % 50),
    'first',
    geminiStreamRoute,
  );
}

/** The scripted server keeps every request it received; drop them between phases to bound memory. */
function forgetRequests(server: ScriptedModelServer): void {
  (server.requests as RecordedRequest[]).length = 0;
}

async function memoryPerSession(upstream: string): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return Number.NaN;
  const proxy = await startProxy({ upstream, thresholds: { mid: 150_000, hard: 190_000 } });
  const toolOutput = 'x'.repeat(4_000);
  const conversation = (session: number) => [
    ...smallConversation(session, 3),
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } }],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: `${session} ${toolOutput.repeat(4)}` },
      ],
    },
  ];
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let session = 0; session < MEMORY_SESSIONS; session += 1) {
    await post(proxy.url, requestBody(conversation(session)));
  }
  gc();
  const after = process.memoryUsage().heapUsed;
  await proxy.close();
  return (after - before) / MEMORY_SESSIONS;
}

/**
 * Five conversations at once through the in-process proxy, each from its own user (API key): with
 * the same first message and with distinct ones. Keys that collided would queue the first case.
 */
async function parallelConversations(): Promise<{ same: number; distinct: number }> {
  const slow = await startScriptedModelServer({
    script: () => new Promise((resolve) => setTimeout(() => resolve('ok'), ANSWER_DELAY_MS)),
    validation: 'off',
  });
  const proxy = await startProxy({ upstream: slow.url, thresholds: { mid: 150_000, hard: 190_000 } });
  const timeAll = async (firstMessage: (conversation: number) => string) => {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: PARALLEL_CONVERSATIONS }, async (_, conversation) => {
        const messages: unknown[] = [{ role: 'user', content: firstMessage(conversation) }];
        for (let turn = 0; turn < PARALLEL_TURNS; turn += 1) {
          await post(proxy.url, requestBody(messages), { 'x-api-key': `bench-user-${conversation}` });
          messages.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: `Next ${turn}.` });
        }
      }),
    );
    return performance.now() - started;
  };
  try {
    const distinct = await timeAll((conversation) => `Conversation ${conversation}: list the files.`);
    const same = await timeAll(() => 'List the files.');
    return { same, distinct };
  } finally {
    await proxy.close();
    await slow.close();
  }
}

/**
 * The first-byte row against a bare Node pass-through hop instead of the direct call: the floor any
 * proxy process on this machine pays, and what agent-compact adds beyond it.
 */
async function compareWithBareHop(
  server: ScriptedModelServer,
  proxied: string,
  proxyPid?: number,
): Promise<void> {
  const direct = server.url;
  const bare = await startBareHop(direct);
  try {
    await warmUp(server, [bare.url]);
    console.log(
      `\nThe same against a bare Node pass-through hop (reads the body, forwards it, pipes the answer), ${SAMPLES_STREAM} samples:`,
    );
    await compare(
      direct,
      bare.url,
      SAMPLES_STREAM,
      (index) => requestBody(smallConversation(3, index % 50), true),
      'first',
      anthropicRoute,
      ['direct', 'bare hop'],
    );
    const before = [cpuMs(bare.child.pid), cpuMs(proxyPid)];
    await compare(
      bare.url,
      proxied,
      SAMPLES_STREAM,
      (index) => requestBody(smallConversation(4, index % 50), true),
      'first',
      anthropicRoute,
      ['bare hop', 'proxy'],
    );
    const perRequest = (index: number, after: number | undefined) => {
      const start = before[index];
      return start === undefined || after === undefined
        ? Number.NaN
        : (after - start) / (WARMUP + SAMPLES_STREAM);
    };
    const [bareCpu, proxyCpu] = [perRequest(0, cpuMs(bare.child.pid)), perRequest(1, cpuMs(proxyPid))];
    if (!Number.isNaN(bareCpu) && !Number.isNaN(proxyCpu)) {
      console.log(
        `  CPU per request (user + system, from /proc): bare hop ${bareCpu.toFixed(3)} ms, proxy ${proxyCpu.toFixed(3)} ms`,
      );
    }
    console.log(`\nThe agent-sized first-byte row against the bare hop, ${SAMPLES_STREAM} samples:`);
    const agentSized = (session: number) => (index: number) => agentSizedRequestBody(session, index % 50);
    await compare(direct, bare.url, SAMPLES_STREAM, agentSized(8), 'first', anthropicRoute, [
      'direct',
      'bare hop',
    ]);
    await compare(bare.url, proxied, SAMPLES_STREAM, agentSized(9), 'first', anthropicRoute, [
      'bare hop',
      'proxy',
    ]);
  } finally {
    bare.child.kill('SIGTERM');
  }
}

/** Small and 100k-token requests, each a new turn of one session, with and without the dashboard watching. */
async function compareRequestSizes(server: ScriptedModelServer, proxied: string): Promise<void> {
  console.log(
    `Small request (~40 tokens, no compaction), ${SAMPLES_SMALL} samples, each a new turn of one session:`,
  );
  await compare(
    server.url,
    proxied,
    SAMPLES_SMALL,
    (index) => requestBody(smallConversation(0, index % 50)),
    'total',
  );
  forgetRequests(server);
  await compareWatched(server);
  forgetRequests(server);
  const large = largeConversation();
  console.log(
    `\n${LARGE_REQUEST_TOKENS / 1000}k-token request (${(requestBody(large).length / 1e6).toFixed(1)} MB, below the thresholds), ${SAMPLES_LARGE} samples:`,
  );
  await compare(server.url, proxied, SAMPLES_LARGE, () => requestBody(large), 'total');
  forgetRequests(server);
}

/** Time to the first streamed byte, of a small request and of one with an agent's system prompt and tools. */
async function compareFirstByte(server: ScriptedModelServer, proxied: string): Promise<void> {
  console.log(`\nTime to first streamed byte (small streamed request), ${SAMPLES_STREAM} samples:`);
  await compare(
    server.url,
    proxied,
    SAMPLES_STREAM,
    (index) => requestBody(smallConversation(1, index % 50), true),
    'first',
  );
  forgetRequests(server);
  console.log(
    `\nTime to first streamed byte with an agent-sized system prompt and 20 tools (62 KB sent again each turn), ${SAMPLES_STREAM} samples:`,
  );
  await compare(
    server.url,
    proxied,
    SAMPLES_STREAM,
    (index) => agentSizedRequestBody(6, index % 50),
    'first',
  );
  forgetRequests(server);
}

/** Requests per second with many sessions at once, direct and through the proxy. */
async function compareThroughput(server: ScriptedModelServer, proxied: string): Promise<void> {
  const directRate = await throughput(server.url);
  forgetRequests(server);
  const proxyRate = await throughput(proxied);
  forgetRequests(server);
  console.log(
    `\nRequests per second, ${CONCURRENT_SESSIONS} concurrent sessions × ${REQUESTS_PER_SESSION} turns: direct ${directRate.toFixed(0)}, proxy ${proxyRate.toFixed(0)}`,
  );
}

export async function run(): Promise<void> {
  const server = await startScriptedModelServer({ script: () => 'ok', validation: 'off' });
  const { url: proxied, child } = await startProxyProcess(server.url);
  try {
    // The figures depend on the V8 the proxy runs on (its cold path is much faster on Node 22+).
    console.log(`Node ${process.version}; the proxy runs on the same binary.\n`);
    await coldCurve(server, proxied);
    await warmUp(server, [server.url, proxied]);
    console.log(
      `\nWarm from here on: every process served ${WARM_REQUESTS} requests of every kind first, as a proxy that runs all day has.\n`,
    );
    await compareRequestSizes(server, proxied);
    await compareFirstByte(server, proxied);
    await compareWithBareHop(server, proxied, child.pid);
    forgetRequests(server);
    await compareGemini(server.url, proxied);
    forgetRequests(server);
    await compareThroughput(server, proxied);
    const parallel = await parallelConversations();
    console.log(
      `\n${PARALLEL_CONVERSATIONS} parallel conversations × ${PARALLEL_TURNS} turns (answers take ${ANSWER_DELAY_MS} ms), one user each: same first message ${parallel.same.toFixed(0)} ms, distinct ${parallel.distinct.toFixed(0)} ms, ratio ${(parallel.same / parallel.distinct).toFixed(2)} (target ≤ 1.5)`,
    );
    const perSession = await memoryPerSession(server.url);
    console.log(
      Number.isNaN(perSession)
        ? '\nMemory per session: run with node --expose-gc (npm run bench does)'
        : `\nMemory per session (${MEMORY_SESSIONS} sessions of ~5k tokens, in-process proxy): ${(perSession / 1024).toFixed(1)} KiB`,
    );
  } finally {
    child.kill('SIGTERM');
    agent.destroy();
    await server.close();
  }
}
