import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../testing/index.js';
import { isSummaryRequest, toolCallingScript, toolOutput } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import type { ProxyRequestRecord } from './proxy-stats.js';

const startProxyOver = useProxyHarness();

/** A promise with its resolver, for waiting on events instead of time. */
function signal<T = void>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Records arriving, resolving a waiter once `count` have. */
function recordsUntil(count: number) {
  const records: ProxyRequestRecord[] = [];
  const done = signal<ProxyRequestRecord[]>();
  return {
    records,
    done: done.promise,
    onRequest: (record: ProxyRequestRecord) => {
      records.push(record);
      if (records.length === count) done.resolve(records);
    },
  };
}

/** Posts an Anthropic request with Node's http client; `abort` drops the connection. */
function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const payload = Buffer.from(JSON.stringify(body));
  const sent = signal();
  const outgoing = httpRequest(`${url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(payload.length),
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
      ...headers,
    },
  });
  const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    });
    outgoing.on('error', reject);
  });
  answer.catch(() => {});
  outgoing.end(payload, () => sent.resolve());
  return { answer, sent: sent.promise, abort: () => outgoing.destroy() };
}

function bodyOf(messages: unknown[]) {
  return {
    model: 'claude-test',
    max_tokens: 100,
    tools: [{ name: 'read_file', input_schema: { type: 'object' } }],
    messages,
  };
}

describe('a client that goes away', () => {
  it('while its summary is written: nothing goes upstream after it, logged as client closed', async () => {
    const summaryArrived = signal<'summary'>();
    const arrivals: string[] = [];
    const script = (request: Omit<RecordedRequest, 'outcome'>): ScriptStep => {
      const summary = isSummaryRequest(request);
      arrivals.push(summary ? 'summary' : 'agent');
      if (!summary) return toolCallingScript(request);
      summaryArrived.resolve('summary');
      return { type: 'hang' };
    };
    const lines: string[] = [];
    const closedRecord = signal<ProxyRequestRecord>();
    const { proxy } = await startProxyOver(script, {
      thresholds: { mid: 1500, hard: 2500 },
      summarizer: 'same',
      log: (line) => lines.push(line),
      // The record of the request whose summary was in flight: it ends the exchange.
      onRequest: (record) => {
        if (arrivals.includes('summary')) closedRecord.resolve(record);
      },
    });
    const messages: unknown[] = [{ role: 'user', content: 'Read every file.' }];
    for (let turn = 0; turn < 30; turn += 1) {
      const request = post(proxy.url, bodyOf(messages));
      const first = await Promise.race([request.answer, summaryArrived.promise]);
      if (first === 'summary') {
        request.abort();
        break;
      }
      const content = first.content as { type: string; id?: string }[];
      messages.push({ role: 'assistant', content });
      const call = content.find((block) => block.type === 'tool_use');
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call?.id, content: toolOutput(turn) }],
      });
    }
    expect(arrivals.at(-1)).toBe('summary');
    const record = await closedRecord.promise;
    expect(arrivals.at(-1)).toBe('summary');
    expect(record.clientClosed).toBe(true);
    expect(record.status).not.toBe(502);
    expect(lines.at(-1)).toContain('client closed');
  });

  it('while queued behind its session: the queued request is dropped, never sent', async () => {
    const firstArrived = signal();
    let arrivals = 0;
    const until = recordsUntil(2);
    const { proxy } = await startProxyOver(
      (): ScriptStep => {
        arrivals += 1;
        firstArrived.resolve();
        return arrivals === 1 ? { type: 'hang' } : 'Sent to nobody.';
      },
      { onRequest: until.onRequest },
    );
    const session = { 'x-agent-compact-session': 'queued' };
    const first = post(proxy.url, bodyOf([{ role: 'user', content: 'One' }]), session);
    await firstArrived.promise;
    const second = post(proxy.url, bodyOf([{ role: 'user', content: 'Two' }]), session);
    await second.sent;
    second.abort();
    first.abort();
    const records = await until.done;
    expect(arrivals).toBe(1);
    expect(records.map((record) => record.clientClosed)).toEqual([true, true]);
  });
});

describe('--upstream-timeout', () => {
  it('gives up on a stalled exchange with a 504 and frees its session for the next request', async () => {
    let arrivals = 0;
    const firstArrived = signal();
    const { proxy, records } = await startProxyOver(
      (): ScriptStep => {
        arrivals += 1;
        firstArrived.resolve();
        return arrivals === 1 ? { type: 'hang' } : 'After the stall.';
      },
      { upstreamTimeoutMs: 300 },
    );
    const session = { 'x-agent-compact-session': 'stalled' };
    const stalled = fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'k',
        'anthropic-version': '2023-06-01',
        ...session,
      },
      body: JSON.stringify(bodyOf([{ role: 'user', content: 'One' }])),
    });
    await firstArrived.promise;
    const next = post(proxy.url, bodyOf([{ role: 'user', content: 'Two' }]), session);
    expect((await stalled).status).toBe(504);
    expect(JSON.stringify(await next.answer)).toContain('After the stall.');
    expect(records[0]).toMatchObject({ status: 504, fallback: 'upstream timeout after 300 ms' });
  });
});
