/**
 * The answer relay: chunks reach the client's socket before the usage tap reads them, in order,
 * and an upstream answer that breaks breaks the client's answer too.
 */
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type ForwardOutcome, forwardRequest } from './forward.js';
import { createUpstreamClient } from './upstream/upstream-client.js';

const servers: Server[] = [];
const client = createUpstreamClient({ timeoutMs: 10_000 });
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An upstream whose streamed answer the test writes: resolves with its response once asked. */
async function scriptedUpstream() {
  let answer: (response: ServerResponse) => void = () => undefined;
  const answering = new Promise<ServerResponse>((resolve) => {
    answer = resolve;
  });
  const url = await listen(
    createServer((_incoming, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      answer(response);
    }),
  );
  return { url, answering };
}

/** A front server that forwards to `upstream`, the tap reading each chunk; resolves with the outcome. */
async function relayServer(upstream: string, onChunk: (chunk: Buffer, response: ServerResponse) => void) {
  let outcome: (value: ForwardOutcome) => void = () => undefined;
  const forwarded = new Promise<ForwardOutcome>((resolve) => {
    outcome = resolve;
  });
  const url = await listen(
    createServer((_incoming, response) => {
      const forwarding = forwardRequest(
        { client, url: new URL(upstream), method: 'GET', headers: {}, body: undefined },
        response,
        { chunk: (chunk) => onChunk(chunk, response) },
      );
      void forwarding.then(outcome);
    }),
  );
  return { url, forwarded };
}

/** Reads the whole answer; resolves with its text, or with `broken` when the connection broke. */
function readAnswer(url: string): Promise<string> {
  return new Promise((resolve) => {
    request(url, (answer) => {
      let text = '';
      answer.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      answer.on('end', () => resolve(text));
      answer.on('error', () => resolve('broken'));
    })
      .on('error', () => resolve('broken'))
      .end();
  });
}

describe('forwardRequest', () => {
  it('hands the first chunk (with the headers) to the socket before the tap reads it, every chunk in order', async () => {
    const upstream = await scriptedUpstream();
    const unsent: number[] = [];
    const { url, forwarded } = await relayServer(upstream.url, (_chunk, response) => {
      // Bytes still held in the socket's buffer when the tap reads the chunk.
      if (unsent.length === 0) unsent.push(response.socket?.writableLength ?? -1);
    });
    const answer = readAnswer(url);
    const upstreamResponse = await upstream.answering;
    upstreamResponse.write('data: one\n\n');
    upstreamResponse.end('data: two\n\n');
    expect(await answer).toBe('data: one\n\ndata: two\n\n');
    expect(await forwarded).toEqual({ type: 'answered', status: 200, complete: true });
    expect(unsent).toEqual([0]);
  });

  it('breaks the client’s answer when the upstream’s breaks off', async () => {
    const upstream = await scriptedUpstream();
    const { url, forwarded } = await relayServer(upstream.url, () => undefined);
    const answer = readAnswer(url);
    const upstreamResponse = await upstream.answering;
    upstreamResponse.write('data: one\n\n');
    upstreamResponse.destroy();
    expect(await forwarded).toEqual({ type: 'answered', status: 200, complete: false });
    expect(await answer).toBe('broken');
  });

  it('breaks the answer when the tap throws, and stops reading the upstream', async () => {
    const upstream = await scriptedUpstream();
    const { url, forwarded } = await relayServer(upstream.url, () => {
      throw new Error('tap failed');
    });
    const answer = readAnswer(url);
    const upstreamResponse = await upstream.answering;
    const upstreamClosed = new Promise((resolve) => upstreamResponse.once('close', resolve));
    upstreamResponse.write('data: one\n\n');
    expect(await forwarded).toEqual({ type: 'answered', status: 200, complete: false });
    expect(await answer).toBe('broken');
    await upstreamClosed;
  });
});
