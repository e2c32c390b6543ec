// The memory suite's requests in flight: REQUESTS large requests at once through a child
// `agent-compact proxy` to an upstream on 127.0.0.1 that reads each body and never answers, at a
// budget that admits them all (the proxy before requests in flight shared `--max-memory`) and at
// smaller ones. Prints the proxy's RSS before and at its peak, once every request is either at the
// upstream or logged as waiting for memory. Run by suites/memory.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** Requests sent at once, each of about {@link REQUEST_BYTES} (the figure docs/proxy.md quoted). */
const REQUESTS = 8;
const REQUEST_BYTES = 25_000_000;
/** A tool result of about 25 kB: a thousand make a request. */
const RESULT_BYTES = 25_000;
/** How often the proxy's RSS is read while the requests arrive. */
const SAMPLE_MS = 50;

/** An upstream that reads each body, counts it, and never answers. */
export async function hungUpstream(): Promise<{ server: Server; received: () => number }> {
  let received = 0;
  const server = createServer((incoming) => {
    incoming.resume();
    incoming.on('end', () => {
      received += 1;
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, received: () => received };
}

/** Request `index`: tool results distinct per request, so no two share a string. */
export function largeBody(index: number): Buffer {
  const messages: unknown[] = [{ role: 'user', content: `Request ${index}: read every log.` }];
  for (let step = 0; step * RESULT_BYTES < REQUEST_BYTES; step += 1) {
    const id = `toolu_${index}_${step}`;
    messages.push(
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'read', input: { path: `${step}.log` } }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            content: `${index}-${step} ${'y'.repeat(90)}\n`.repeat(250),
          },
        ],
      },
    );
  }
  return Buffer.from(JSON.stringify({ model: 'claude-bench', max_tokens: 64, messages }));
}

function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

/** A child proxy at `budget`, its log lines on stderr counted as requests waiting for memory. */
async function childProxy(upstream: string, budget: string) {
  const bin = fileURLToPath(new URL('../cli/bin.js', import.meta.url));
  const args = ['proxy', '--upstream', upstream, '--port', '0', '--mid', '2000', '--hard', '4000'];
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, ...args, '--summarizer', 'extractive', '--max-memory', budget],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let waiting = 0;
  child.stderr?.on('data', (chunk: Buffer) => {
    waiting += chunk.toString('utf8').split('waits for memory').length - 1;
  });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  const url = /^listening on (\S+)/.exec(chunk.toString('utf8'))?.[1];
  if (!url) throw new Error(`unexpected first line: ${chunk.toString('utf8')}`);
  return { url, child, waiting: () => waiting };
}

/**
 * Sends `body` and forgets the answer (there is none). Not awaited: the body of a request waiting for
 * memory stays in the socket, so its write does not finish until the request is admitted.
 */
export function sendAndForget(url: string, body: Buffer, session: string): void {
  const outgoing = request(`${url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'x-api-key': 'bench-key',
      'anthropic-version': '2023-06-01',
      'x-agent-compact-session': session,
    },
  });
  outgoing.on('error', () => undefined);
  outgoing.end(body);
}

/** One budget: RSS before, and its peak until every request is upstream or waiting. */
async function measure(budget: string, bodies: Buffer[]): Promise<string> {
  const upstream = await hungUpstream();
  const port = (upstream.server.address() as AddressInfo).port;
  const proxy = await childProxy(`http://127.0.0.1:${port}`, budget);
  try {
    const before = rssMiB(proxy.child.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(proxy.child.pid));
    }, SAMPLE_MS);
    for (const [index, body] of bodies.entries()) sendAndForget(proxy.url, body, `in-flight-${index}`);
    while (upstream.received() + proxy.waiting() < REQUESTS) {
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
    clearInterval(sampler);
    peak = Math.max(peak, rssMiB(proxy.child.pid));
    // With all of them in flight, the growth per body byte: what a reservation should cover.
    const bodyBytes = bodies.reduce((sum, body) => sum + body.length, 0);
    const perByte = ((peak - before) * 2 ** 20) / bodyBytes;
    return (
      `${REQUESTS} × ${(REQUEST_BYTES / 1e6).toFixed(0)} MB at once, upstream never answers, --max-memory ${budget.padEnd(6)} ` +
      `RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB; forwarded ${upstream.received()}, waiting ${proxy.waiting()}` +
      (proxy.waiting() === 0 ? ` (${perByte.toFixed(1)} bytes per body byte)` : '')
    );
  } finally {
    proxy.child.kill('SIGKILL');
    upstream.server.closeAllConnections();
    upstream.server.close();
  }
}

/**
 * The figures, one line per budget: `4GiB` admits all eight (how every budget behaved before), then
 * the default and a smaller one.
 */
export async function inFlightFigures(budgets = ['4GiB', '512MiB', '128MiB']): Promise<void> {
  const bodies = Array.from({ length: REQUESTS }, (_, index) => largeBody(index));
  for (const budget of budgets) console.log(await measure(budget, bodies));
}
