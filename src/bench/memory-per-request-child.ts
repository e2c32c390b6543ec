// The memory suite's cost of one request in flight, in a process of its own: the 25 MB requests of
// `memory-in-flight.ts` sent one after another through a proxy in this process to an upstream that
// never answers, each once the one before reached it. Prints, per body byte, what the requests in
// flight retain (heap plus external after a GC) and the peak above that while the next one is read
// and compacted (sampled every 5 ms): what a request's reservation in `--max-memory` should cover
// (`IN_FLIGHT_BYTES_PER_BODY_BYTE` in `proxy/in-flight.ts`). Run by suites/memory.ts.
import type { AddressInfo } from 'node:net';
import { hungUpstream, largeBody, sendAndForget } from './memory-in-flight.js';
import { retainedMiB, withProxyInProcess } from './memory-measure.js';

const REQUESTS = 4;
const SAMPLE_MS = 5;

function heapAndExternalMiB(): number {
  const { heapUsed, external } = process.memoryUsage();
  return (heapUsed + external) / 2 ** 20;
}

const upstream = await hungUpstream();
const bodies = Array.from({ length: REQUESTS }, (_, index) => largeBody(index));
const bodyMiB = bodies[0]!.length / 2 ** 20;
await withProxyInProcess(
  {
    upstream: `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}`,
    thresholds: { mid: 2000, hard: 4000 },
    maxMemoryBytes: 4 * 1024 ** 3,
  },
  async (url) => {
    const start = await retainedMiB();
    let held = start;
    for (const [index, body] of bodies.entries()) {
      let peak = heapAndExternalMiB();
      const sampler = setInterval(() => {
        peak = Math.max(peak, heapAndExternalMiB());
      }, SAMPLE_MS);
      sendAndForget(url, body, `per-request-${index}`);
      while (upstream.received() <= index) await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      clearInterval(sampler);
      const now = await retainedMiB();
      console.log(
        `request ${index + 1} of ${bodyMiB.toFixed(1)} MiB in flight: ${((now - start) / ((index + 1) * bodyMiB)).toFixed(1)} bytes per body byte retained by those in flight, ` +
          `${((peak - held) / bodyMiB).toFixed(1)} at its peak above the ones before`,
      );
      held = now;
    }
    // The upstream never answers: dropping its connections ends the exchanges the proxy's close waits for.
    upstream.server.closeAllConnections();
  },
);
upstream.server.close();
