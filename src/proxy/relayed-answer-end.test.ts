/**
 * Every path that relays an upstream answer records how it ended the same way: a passthrough, a
 * stateful request sent as it came, and the `--recall` loop mark an answer the upstream broke off
 * (`answerBroken`) or an error it streamed after a 200 (`streamError`), as a compacted one does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { startProxy } from './proxy-server.js';
import type { ProxyRequestRecord } from './proxy-stats.js';

const startProxyOver = useProxyHarness();

/** An Anthropic answer that starts with a 200 and then reports an overload (`event: error`). */
const OVERLOADED =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\nevent: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';

const tool = {
  name: 'read_file',
  description: 'Reads a file.',
  input_schema: { type: 'object', properties: {} },
};

function anthropicBody(extra: Record<string, unknown> = {}) {
  return { model: 'm', max_tokens: 10, tools: [tool], messages: [{ role: 'user', content: 'x' }], ...extra };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
      authorization: 'Bearer k',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

let upstream: Server | undefined;
afterEach(() => {
  upstream?.close();
  upstream = undefined;
});

/** A proxy in front of an upstream that answers every request with a 200 stream of `events`. */
async function overStreamedError(options: { recall?: boolean } = {}) {
  const server = createServer((_incoming, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(OVERLOADED);
  });
  upstream = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const records: ProxyRequestRecord[] = [];
  const lines: string[] = [];
  const proxy = await startProxy({
    upstream: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log: (line) => lines.push(line),
    onRequest: (record) => records.push(record),
    ...options,
  });
  return { proxy, records, lines };
}

describe('an error the upstream streams after a 200', () => {
  it.each([
    [
      'a body the proxy cannot read (passthrough)',
      '/v1/messages',
      anthropicBody({ stream: true }),
      'compress',
    ],
    [
      'a stateful request sent as it came',
      '/v1/responses',
      { model: 'm', stream: true, previous_response_id: 'resp_1', input: 'x' },
      'identity',
    ],
  ])('%s: on the record and the log line', async (_case, path, body, encoding) => {
    const { proxy, records, lines } = await overStreamedError();
    const answer = await post(`${proxy.url}${path}`, body, { 'content-encoding': encoding });
    expect(await answer.text()).toBe(OVERLOADED);
    await proxy.close();
    expect(records).toMatchObject([{ status: 200, streamError: 'overloaded_error: Overloaded' }]);
    expect(records[0]?.passthrough).toBeDefined();
    expect(lines.join('\n')).toContain('stream error: overloaded_error: Overloaded');
  });

  it('with --recall: on the record, and the client gets the event as sent', async () => {
    const { proxy, records } = await overStreamedError({ recall: true });
    const answer = await post(`${proxy.url}/v1/messages`, anthropicBody({ stream: true }));
    expect(await answer.text()).toBe(OVERLOADED);
    await proxy.close();
    expect(records).toMatchObject([{ status: 200, streamError: 'overloaded_error: Overloaded' }]);
  });
});

describe('an answer the upstream broke off', () => {
  it('a passthrough path: on the record, counted among the upstream errors', async () => {
    const server = createServer((_incoming, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(OVERLOADED.split('\n\n')[0]);
      // Let the first bytes reach the proxy before the socket goes.
      setTimeout(() => response.socket?.destroy(), 10);
    });
    upstream = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const records: ProxyRequestRecord[] = [];
    const proxy = await startProxy({
      upstream: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      onRequest: (record) => records.push(record),
    });
    const answer = await post(`${proxy.url}/v1/messages/batches`, { requests: [] });
    await expect(answer.text()).rejects.toThrow();
    await proxy.close();
    const stats = await proxy.stats();
    expect(records).toMatchObject([{ api: 'passthrough', status: 200, answerBroken: true }]);
    expect(stats.upstreamErrors).toBe(1);
  });

  it.each([false, true])('with --recall (stream %s): on the record', async (stream) => {
    const { proxy, records } = await startProxyOver([{ type: 'drop-connection' }], { recall: true });
    // A plain answer is read whole before anything goes to the client: it gets no status line.
    const answer = post(`${proxy.url}/v1/messages`, anthropicBody({ stream })).then((response) =>
      response.text(),
    );
    await expect(answer).rejects.toThrow();
    await proxy.close();
    expect(records).toMatchObject([{ api: 'anthropic', status: 200, answerBroken: true }]);
  });
});
