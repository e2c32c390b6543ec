/**
 * The answer relay: chunks reach the client's socket before the usage tap reads them, in order,
 * and an upstream body that breaks breaks the client's answer too.
 */
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { relayBody } from './forward.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server whose one answer is relayed from `body`: its URL, when the relay started, and its result. */
async function relayServer(body: PassThrough, onChunk: (chunk: Buffer, response: ServerResponse) => void) {
  let relayed: Promise<boolean> | undefined;
  const started = new Promise<void>((resolve) => {
    server = createServer((_incoming, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      relayed = relayBody(body, response, (chunk) => onChunk(chunk, response));
      resolve();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  const result = async () => {
    await started;
    return relayed!;
  };
  return { url, started, relayed: result };
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

describe('relayBody', () => {
  it('hands the first chunk (with the headers) to the socket before the tap reads it, every chunk in order', async () => {
    const body = new PassThrough();
    const unsent: number[] = [];
    const { url, started, relayed } = await relayServer(body, (_chunk, response) => {
      // Bytes still held in the socket's buffer when the tap reads the chunk.
      if (unsent.length === 0) unsent.push(response.socket?.writableLength ?? -1);
    });
    const answer = readAnswer(url);
    await started;
    body.write('data: one\n\n');
    body.write('data: two\n\n');
    body.end();
    expect(await answer).toBe('data: one\n\ndata: two\n\n');
    expect(await relayed()).toBe(true);
    expect(unsent).toEqual([0]);
  });

  it('breaks the client’s answer when the upstream body is destroyed without an error', async () => {
    const body = new PassThrough();
    const { url, started, relayed } = await relayServer(body, () => {
      body.destroy();
    });
    const answer = readAnswer(url);
    await started;
    body.write('data: one\n\n');
    expect(await relayed()).toBe(false);
    expect(await answer).toBe('broken');
  });
});
