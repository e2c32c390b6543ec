/**
 * Every path that relays an upstream answer records how it ended the same way: a passthrough, a
 * stateful request sent as it came, and the `--recall` loop mark an answer the upstream broke off
 * (`answerBroken`) or an error it streamed after a 200 (`streamError`), as a compacted one does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ANY_PROVIDER_HEADERS, useProxyHarness } from './proxy-harness.test-utils.js';
import { startProxy } from './proxy-server.js';
import type { ProxyRequestRecord } from './proxy-stats.js';

const startProxyOver = useProxyHarness();

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
    headers: { ...ANY_PROVIDER_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
}

/** The proxy does not decode this encoding: the body goes on as it came (the scripted server reads it as JSON). */
const UNREAD = { 'content-encoding': 'compress' };

describe('an error the upstream streams after a 200', () => {
  it.each([
    [
      'a body the proxy cannot read (passthrough)',
      '/v1/messages',
      anthropicBody({ stream: true }),
      UNREAD,
      false,
    ],
    [
      'a stateful request sent as it came',
      '/v1/responses',
      { model: 'm', stream: true, previous_response_id: 'resp_1', input: 'x' },
      {},
      false,
    ],
    ['a request answered through --recall', '/v1/messages', anthropicBody({ stream: true }), {}, true],
  ])('%s: on the record and the log line', async (_case, path, body, headers, recall) => {
    const lines: string[] = [];
    const { proxy, records } = await startProxyOver([{ type: 'stream-error' }], {
      recall,
      log: (line) => lines.push(line),
    });
    const answer = await post(`${proxy.url}${path}`, body, headers);
    // The client gets the provider's own event, so its retry logic sees it.
    expect(await answer.text()).toMatch(/event: error\ndata: .*Overloaded/);
    await proxy.close();
    const named = path === '/v1/messages' ? 'overloaded_error: Overloaded' : 'server_error: Overloaded';
    expect(records).toMatchObject([{ status: 200, streamError: named }]);
    expect(lines.join('\n')).toContain(`stream error: ${named}`);
  });
});

describe('an error streamed after a recall call began (--recall)', () => {
  it('goes to the client and on the record; no follow-up answers the call it broke', async () => {
    const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    let requests = 0;
    // An upstream whose model begins a call to the proxy's own recall tool, then overloads mid-call.
    const upstream = createServer((request, response) => {
      requests += 1;
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(
        [
          sse('message_start', {
            type: 'message_start',
            message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'm', usage: {} },
          }),
          sse('content_block_start', {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'tool_use', id: 'toolu_1', name: 'recall', input: {} },
          }),
          sse('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: '{"id":"r' },
          }),
          sse('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
        ].join(''),
      );
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => {
      upstream.closeAllConnections();
      upstream.close();
    });
    const records: ProxyRequestRecord[] = [];
    const proxy = await startProxy({
      upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      recall: true,
      onRequest: (done) => records.push(done),
    });
    onTestFinished(() => proxy.close());
    const answer = await post(`${proxy.url}/v1/messages`, anthropicBody({ stream: true }));
    expect(await answer.text()).toMatch(/event: error\ndata: .*Overloaded/);
    await proxy.close();
    expect(requests).toBe(1);
    expect(records).toMatchObject([{ status: 200, streamError: 'overloaded_error: Overloaded' }]);
  });
});

describe('an answer the upstream broke off', () => {
  it('a passthrough: on the record, counted among the upstream errors', async () => {
    const { proxy, records } = await startProxyOver([{ type: 'drop-connection' }]);
    const answer = await post(`${proxy.url}/v1/messages`, anthropicBody({ stream: true }), UNREAD);
    await expect(answer.text()).rejects.toThrow();
    await proxy.close();
    expect(records).toMatchObject([{ api: 'passthrough', status: 200, answerBroken: true }]);
    expect((await proxy.stats()).upstreamErrors).toBe(1);
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

describe('an answer the client left', () => {
  it('a passthrough: recorded as client closed, not as an answer that went well', async () => {
    // An upstream that starts its streamed answer and never ends it: the client leaves mid-answer.
    const upstream = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: message_start\ndata: {"type":"message_start"}\n\n');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => {
      upstream.closeAllConnections();
      upstream.close();
    });
    let recorded: (record: ProxyRequestRecord) => void = () => {};
    const record = new Promise<ProxyRequestRecord>((resolve) => {
      recorded = resolve;
    });
    const proxy = await startProxy({
      upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      onRequest: (done) => recorded(done),
    });
    onTestFinished(() => proxy.close());
    const leave = new AbortController();
    const answer = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { ...ANY_PROVIDER_HEADERS, ...UNREAD },
      body: JSON.stringify(anthropicBody({ stream: true })),
      signal: leave.signal,
    });
    await answer.body!.getReader().read();
    leave.abort();
    expect(await record).toMatchObject({ api: 'passthrough', status: 200, clientClosed: true });
    expect((await record).answerBroken).toBeUndefined();
  });
});
