// The memory suite's large sessions, in a process of their own: 300 sessions of one 280 kB request
// each (60 distinct tool results of about 3.7 kB) through a proxy in this process at --max-memory
// 32MiB, and its heap plus external memory after a GC before and after. Run by suites/memory.ts.
import type { AddressInfo } from 'node:net';
import { parseByteSize } from '../proxy/upstream/request-body.js';
import { bareUpstream, retainedMiB, withProxyInProcess } from './memory-measure.js';
import { agent, post } from './proxy-requests.js';

/** Large sessions: one request each of many distinct tool results, at a budget they overfill. */
const LARGE_SESSIONS = 300;
const LARGE_RESULTS = 60;
const LARGE_BUDGET = '32MiB';
const WARM_UP_SESSIONS = 5;

/** A request of `LARGE_RESULTS` tool results of about 3.7 kB, distinct per session (about 280 kB). */
function largeSessionBody(session: number): string {
  const messages: unknown[] = [{ role: 'user', content: `Session ${session}: run the checks.` }];
  for (let step = 0; step < LARGE_RESULTS; step += 1) {
    const id = `toolu_large_${session}_${step}`;
    messages.push(
      {
        role: 'assistant',
        content: [
          { type: 'text', text: `Step ${step} of session ${session}: looking at the output. `.repeat(20) },
          { type: 'tool_use', id, name: 'bash', input: { command: `run ${step}` } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            content: `${session}-${step} ${'x'.repeat(60)}\n`.repeat(60),
          },
        ],
      },
    );
  }
  return JSON.stringify({ model: 'claude-bench', max_tokens: 64, messages });
}

/**
 * Sessions larger than the budget through a proxy in this process: what it retains after a GC
 * (everything it keeps per text, such as the counted texts' cache, must fit the budget too).
 */
async function retainedLarge(upstream: string): Promise<void> {
  const thresholds = { mid: 20_000, hard: 60_000 };
  const maxMemoryBytes = parseByteSize(LARGE_BUDGET, 'LARGE_BUDGET');
  await withProxyInProcess({ upstream, thresholds, maxMemoryBytes }, async (url) => {
    const started = await retainedMiB();
    // The code and tables a proxy loads on its first compactions are not what it keeps per session.
    for (let session = 0; session < WARM_UP_SESSIONS; session += 1)
      await post(url, largeSessionBody(-1 - session), { 'x-api-key': `bench-warm-up-${session}` });
    const warm = await retainedMiB();
    for (let session = 0; session < LARGE_SESSIONS; session += 1)
      await post(url, largeSessionBody(session), { 'x-api-key': `bench-key-${session}` });
    const after = await retainedMiB();
    console.log(
      `in process, sessions of 280 kB, budget ${LARGE_BUDGET}: heap + external after GC ${started.toFixed(0)} MiB at start, ${warm.toFixed(0)} MiB after ${WARM_UP_SESSIONS} sessions, ${after.toFixed(0)} MiB after ${LARGE_SESSIONS} more (+${(after - started).toFixed(0)} MiB in all)`,
    );
  });
}

const upstream = await bareUpstream();
try {
  await retainedLarge(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
} finally {
  upstream.close();
  agent.destroy();
}
