/**
 * A slow client holds the upstream back: the proxy reads the upstream's answer only as fast as the
 * client takes it, so what sits between them is bounded by socket buffers, not by the answer.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningProxy } from '../proxy-options.js';
import { startProxy } from '../proxy-server.js';

const MiB = 1024 * 1024;
/** The answer's size: far more than every buffer on the way together. */
const ANSWER_BYTES = 64 * MiB;
/**
 * What may sit between the upstream and the client: two loopback sockets' kernel buffers (Linux
 * grows them to a few MiB each) and the streams' high-water marks. The whole answer is 64 MiB.
 */
const IN_FLIGHT_BOUND = 24 * MiB;
/** The client reads this much per event-loop turn: slow next to an upstream writing 64 KiB at once. */
const CLIENT_STEP = 1024;

let upstream: Server | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
  proxy = undefined;
  upstream = undefined;
});

/** An upstream that streams a 64 MiB SSE answer as fast as its socket takes it, counting bytes. */
async function startStreamingUpstream() {
  const progress = { written: 0 };
  const event = Buffer.from(
    `event: content_block_delta\ndata: ${JSON.stringify({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'x'.repeat(64 * 1024 - 120) },
    })}\n\n`,
  );
  upstream = createServer((request, response) => {
    request.resume();
    request.on('end', async () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      while (progress.written < ANSWER_BYTES && !response.destroyed) {
        progress.written += event.length;
        if (!response.write(event)) await waitForDrain(response);
      }
      response.end();
    });
  });
  await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, progress };
}

function waitForDrain(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/** A tool of the client's own: with `--recall` the proxy adds `recall` beside it and reads the stream. */
const clientTool = { name: 'bash', description: 'Runs a command.', input_schema: { type: 'object' } };

/** Posts a streamed Anthropic request; resolves with the paused answer. */
function postStreamed(url: string): Promise<IncomingMessage> {
  const body = JSON.stringify({
    model: 'claude-test',
    max_tokens: 100,
    stream: true,
    tools: [clientTool],
    messages: [{ role: 'user', content: 'stream a long answer' }],
  });
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    });
    outgoing.on('response', (response) => {
      response.pause();
      resolve(response);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Reads the answer `CLIENT_STEP` bytes per event-loop turn, noting the most the chain held. */
async function readSlowly(answer: IncomingMessage, progress: { written: number }) {
  let read = 0;
  let mostInFlight = 0;
  let ended = false;
  answer.once('end', () => {
    ended = true;
  });
  while (!ended) {
    const chunk = answer.read(CLIENT_STEP) as Buffer | null;
    if (chunk === null) {
      // Less than a step is buffered: wait for more (or the end, which needs a read to be seen).
      const rest = answer.read() as Buffer | null;
      if (rest !== null) read += rest.length;
      else await new Promise((resolve) => answer.once('readable', resolve));
      continue;
    }
    read += chunk.length;
    mostInFlight = Math.max(mostInFlight, progress.written - read);
    await nextTurn();
  }
  return { read, mostInFlight };
}

describe('a slow client', () => {
  it.each([
    ['forwarded', false],
    ['read by the recall loop (--recall)', true],
  ])(
    'holds the upstream back, the answer %s: the proxy never reads far ahead of what the client took',
    async (_name, recall) => {
      const { url, progress } = await startStreamingUpstream();
      proxy = await startProxy({ upstream: url, dashboard: false, recall });
      const answer = await postStreamed(proxy.url);
      expect(answer.statusCode).toBe(200);
      const { read, mostInFlight } = await readSlowly(answer, progress);
      expect(read).toBeGreaterThanOrEqual(ANSWER_BYTES);
      expect(mostInFlight).toBeLessThan(IN_FLIGHT_BOUND);
    },
    120_000,
  );
});
