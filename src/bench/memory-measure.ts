// What the memory suite and its large-session child share: the upstream the proxy forwards to, a
// proxy in the bench's own process, and how much memory the process retains.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { startProxy } from '../proxy/index.js';

/** An answer whose usage counts a token per four bytes of the request, as the proxy's heuristic does. */
function answer(requestBytes: number): string {
  return JSON.stringify({
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'claude-bench',
    content: [{ type: 'text', text: 'Reading the next file.' }],
    stop_reason: 'end_turn',
    usage: { input_tokens: Math.round(requestBytes / 4), output_tokens: 8 },
  });
}

/** An upstream on 127.0.0.1 that reads the body and answers at once, keeping nothing. */
export async function bareUpstream(): Promise<Server> {
  const server = createServer((incoming, response) => {
    let bytes = 0;
    incoming.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    incoming.on('end', () =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(answer(bytes)),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/**
 * Heap plus external memory of this process after full GCs, in MiB (twice, a turn apart: weak maps
 * let go on the second). Needs `--expose-gc`.
 */
export async function retainedMiB(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((resolve) => setImmediate(resolve));
  gc?.();
  const { heapUsed, external } = process.memoryUsage();
  return (heapUsed + external) / 2 ** 20;
}

/**
 * A proxy in this process in front of `upstream` (extractive summaries, a `--max-memory` of
 * `maxMemoryBytes`), handed to `use` and closed after.
 */
export async function withProxyInProcess(
  options: { upstream: string; thresholds: { mid: number; hard: number }; maxMemoryBytes: number },
  use: (url: string) => Promise<void>,
): Promise<void> {
  const proxy = await startProxy({
    upstream: options.upstream,
    thresholds: options.thresholds,
    summarizer: 'extractive',
    maxMemoryBytes: options.maxMemoryBytes,
  });
  try {
    await use(proxy.url);
  } finally {
    await proxy.close();
  }
}
