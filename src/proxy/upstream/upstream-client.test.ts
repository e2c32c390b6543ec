/**
 * The one HTTP client on its own: answers read as a stream (`send`) and handed to a sink (`relay`),
 * an answer that breaks off, an upstream that cannot be reached, and an abort before the answer.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamClient } from './upstream-client.js';

const client = createUpstreamClient({ timeoutMs: 10_000 });
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** An upstream that answers each request with `answer`; resolves with its URL. */
async function upstream(answer: (response: ServerResponse) => void): Promise<URL> {
  server = createServer((incoming, response) => {
    incoming.resume();
    incoming.on('end', () => answer(response));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages?beta=true`);
}

const call = (url: URL, signal?: AbortSignal) => ({
  url,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: Buffer.from('{"a":1}'),
  ...(signal ? { signal } : {}),
});

describe('createUpstreamClient', () => {
  it('send: the status, headers and body of the answer, the path and query as given', async () => {
    let path = '';
    const url = await upstream((response) => {
      response.writeHead(201, { 'x-upstream': 'yes' });
      response.end('héllo');
    });
    server!.prependListener('request', (incoming) => {
      path = incoming.url ?? '';
    });
    const answer = await client.send(call(url));
    expect(answer.status).toBe(201);
    expect(answer.headers['x-upstream']).toBe('yes');
    expect(await answer.body.text()).toBe('héllo');
    expect(path).toBe('/v1/messages?beta=true');
  });

  it('send: a body that breaks off mid-answer fails the reader with the upstream’s error', async () => {
    const url = await upstream((response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial');
      setImmediate(() => response.destroy());
    });
    const answer = await client.send(call(url));
    const failure = await answer.body.text().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    // undici's own error (its socket closed), not a message made up here.
    expect((failure as Error).name).toBe('SocketError');
  });

  it('relay: every chunk to the sink in order, then complete; broken when the answer breaks off', async () => {
    const url = await upstream((response) => {
      response.writeHead(200);
      response.write('one ');
      setImmediate(() => response.end('two'));
    });
    const chunks: string[] = [];
    const sink = { head: () => undefined, chunk: (chunk: Buffer) => chunks.push(chunk.toString()) > 0 };
    expect(await client.relay(call(url), sink)).toBe('complete');
    expect(chunks.join('')).toBe('one two');

    const broken: Error[] = [];
    const breaking = await upstream((response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial');
      setImmediate(() => response.destroy());
    });
    const end = await client.relay(call(breaking), { ...sink, broken: (error) => broken.push(error) });
    expect(end).toBe('broken');
    expect(broken).toHaveLength(1);
  });

  it('relay rejects, with nothing given to the sink, when the upstream cannot be reached or the call was aborted', async () => {
    let heads = 0;
    const sink = {
      head: () => {
        heads += 1;
      },
      chunk: () => true,
    };
    const closedPort = await upstream(() => undefined);
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    await expect(client.relay(call(closedPort), sink)).rejects.toThrow();

    const url = await upstream((response) => response.end('late'));
    const aborter = new AbortController();
    aborter.abort(new Error('client left'));
    await expect(client.relay(call(url, aborter.signal), sink)).rejects.toThrow('client left');
    expect(heads).toBe(0);
  });
});
