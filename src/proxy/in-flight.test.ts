import { request as httpRequest } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ScriptStep } from '../testing/index.js';
import { type Admission, IN_FLIGHT_BYTES_PER_BODY_BYTE, InFlightRequests } from './in-flight.js';
import { MemoryBudget } from './memory-budget.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import type { ProxyOptions } from './proxy-options.js';
import type { ProxyRequestRecord } from './proxy-stats.js';
import { createMemoryProxySessionStore, type ProxySessionStore } from './session-store.js';

const startProxyOver = useProxyHarness();

/** A promise with its resolver, for waiting on events instead of time. */
function signal<T = void>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const never = () => ({ signal: new AbortController().signal, timeoutMs: 60_000 });

describe('InFlightRequests', () => {
  it('lets requests in while they fit, then one at a time in arrival order as earlier ones finish', async () => {
    const inFlight = new InFlightRequests(new MemoryBudget(10 * IN_FLIGHT_BYTES_PER_BODY_BYTE));
    const order: string[] = [];
    const noted = (name: string) => (admission: Admission) => {
      order.push(name);
      return admission;
    };
    const first = (await inFlight.admit(6, never())) as Extract<Admission, { type: 'admitted' }>;
    const second = inFlight.admit(6, never()).then(noted('second'));
    // Small enough to fit beside the first, but behind the second: first come, first served.
    const third = inFlight.admit(1, never()).then(noted('third'));
    expect(inFlight.queued).toBe(2);
    first.release();
    expect((await second).type).toBe('admitted');
    expect((await third).type).toBe('admitted');
    expect(order).toEqual(['second', 'third']);
  });

  it('lets a request larger than the whole budget in once nothing else is in flight', async () => {
    const budget = new MemoryBudget(10);
    const inFlight = new InFlightRequests(budget);
    const large = await inFlight.admit(100, never());
    expect(large.type).toBe('admitted');
    expect(budget.reserved).toBe(100 * IN_FLIGHT_BYTES_PER_BODY_BYTE);
    const waiting = inFlight.admit(1, never());
    expect(inFlight.queued).toBe(1);
    (large as Extract<Admission, { type: 'admitted' }>).release();
    expect((await waiting).type).toBe('admitted');
    expect(budget.reserved).toBe(IN_FLIGHT_BYTES_PER_BODY_BYTE);
  });

  it('drops a waiting request whose client left, and one that waited past its timeout', async () => {
    const inFlight = new InFlightRequests(new MemoryBudget(IN_FLIGHT_BYTES_PER_BODY_BYTE));
    await inFlight.admit(1, never());
    const aborter = new AbortController();
    const left = inFlight.admit(1, { signal: aborter.signal, timeoutMs: 60_000 });
    const tired = inFlight.admit(1, { signal: new AbortController().signal, timeoutMs: 1 });
    aborter.abort();
    expect(await left).toEqual({ type: 'closed' });
    expect(await tired).toEqual({ type: 'timed-out' });
    expect(inFlight.queued).toBe(0);
  });

  it('reserves four bytes per body byte, what a request was measured to hold in flight', async () => {
    const budget = new MemoryBudget(1000);
    await new InFlightRequests(budget).admit(100, never());
    expect(budget.reserved).toBe(400);
  });

  it('evicts idle entries for a reservation at the next charge, sparing the session charged', () => {
    const budget = new MemoryBudget(100);
    const evicted: string[] = [];
    budget.charge('idle', 60, () => evicted.push('idle'));
    budget.charge('served', 20, () => evicted.push('served'));
    expect(budget.reserve(50, false)).toBe(true);
    expect(evicted).toEqual([]);
    budget.charge('served', 20, () => evicted.push('served'));
    expect(evicted).toEqual(['idle']);
    expect(budget.used).toBe(70);
  });
});

/** Bytes of text in each request: two of them (charged four times over) pass the budget below. */
const LARGE_BYTES = 200_000;
/** `--max-memory` for these tests: room for one request of {@link LARGE_BYTES} in flight, not two. */
const ONE_LARGE_REQUEST = 1024 * 1024;

/**
 * Posts an Anthropic request of `size` bytes of text in its session; `abort` drops the connection.
 * With `held`, only the headers go out until `send`.
 */
function post(url: string, session: string, size = LARGE_BYTES, held = false) {
  const payload = Buffer.from(
    JSON.stringify({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: `${session}: ${'x'.repeat(size)}` }],
    }),
  );
  const outgoing = httpRequest(`${url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(payload.length),
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
      'x-agent-compact-session': session,
    },
  });
  const answer = new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      outgoing.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      outgoing.on('error', reject);
    },
  );
  answer.catch(() => {});
  const send = () => outgoing.end(payload);
  if (held) outgoing.flushHeaders();
  else send();
  return { answer, send, abort: () => outgoing.destroy() };
}

/**
 * A proxy over an upstream that holds each answer until the test releases it, within
 * {@link ONE_LARGE_REQUEST}. `next` waits for the first of some events: `arrived <session>` as a
 * request reaches the upstream, `waiting` as the proxy logs one waiting for memory, `record <status>`.
 */
async function heldProxy(options: Partial<ProxyOptions> = {}) {
  const arrivals: string[] = [];
  const releases = new Map<string, () => void>();
  const events: string[] = [];
  const listeners = new Set<() => void>();
  let finished = false;
  const note = (event: string) => {
    events.push(event);
    for (const listener of listeners) listener();
  };
  const script = async (request: { body: unknown }): Promise<ScriptStep> => {
    const session = /"(\w+): x/.exec(JSON.stringify(request.body))?.[1] ?? '?';
    arrivals.push(session);
    const released = signal();
    releases.set(session, released.resolve);
    note(`arrived ${session}`);
    if (!finished) await released.promise;
    return `Answer to ${session}.`;
  };
  const records: ProxyRequestRecord[] = [];
  const { proxy } = await startProxyOver(script, {
    summarizer: 'extractive',
    contextWindow: 10_000_000,
    maxMemoryBytes: ONE_LARGE_REQUEST,
    log: (line) => {
      if (line.includes('waits for memory')) note('waiting');
    },
    onRequest: (record) => {
      records.push(record);
      note(`record ${record.status}`);
    },
    ...options,
  });
  /** Resolves with the first of `wanted` to happen from now on. */
  const next = (wanted: string[], since = events.length) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const found = events.slice(since).find((event) => wanted.includes(event));
        if (found === undefined) return;
        listeners.delete(check);
        resolve(found);
      };
      listeners.add(check);
      check();
    });
  const release = (session: string) => releases.get(session)?.();
  // A failed test leaves answers held: let them go, so closing the proxy does not wait for them.
  onTestFinished(() => {
    finished = true;
    for (const held of releases.values()) held();
  });
  return { proxy, arrivals, release, next, records };
}

describe('requests in flight within --max-memory', () => {
  it('holds a request that does not fit until an earlier answer is done, then forwards it', async () => {
    const { proxy, arrivals, release, next } = await heldProxy();
    const first = post(proxy.url, 'alpha');
    expect(await next(['arrived alpha'])).toBe('arrived alpha');
    const second = post(proxy.url, 'beta');
    // Today's proxy forwarded it at once: it would arrive before any word of waiting.
    expect(await next(['waiting', 'arrived beta'])).toBe('waiting');
    expect(arrivals).toEqual(['alpha']);
    const secondArrives = next(['arrived beta']);
    release('alpha');
    expect((await first.answer).status).toBe(200);
    await secondArrives;
    release('beta');
    expect((await second.answer).body).toContain('Answer to beta.');
    expect(arrivals).toEqual(['alpha', 'beta']);
  });

  it('waits for room before reading a body of declared length, so a waiting request holds none of it', async () => {
    const { proxy, arrivals, release, next } = await heldProxy();
    const first = post(proxy.url, 'alpha');
    await next(['arrived alpha']);
    // Only its headers are sent: a proxy that read the body before admitting would wait for it.
    const second = post(proxy.url, 'beta', LARGE_BYTES, true);
    expect(await next(['waiting'])).toBe('waiting');
    second.send();
    const secondArrives = next(['arrived beta']);
    release('alpha');
    expect((await first.answer).status).toBe(200);
    await secondArrives;
    release('beta');
    expect((await second.answer).status).toBe(200);
    expect(arrivals).toEqual(['alpha', 'beta']);
  });

  it('never forwards a waiting request whose client went away', async () => {
    const { proxy, arrivals, release, next, records } = await heldProxy();
    const first = post(proxy.url, 'alpha');
    await next(['arrived alpha']);
    const second = post(proxy.url, 'beta');
    expect(await next(['waiting', 'arrived beta'])).toBe('waiting');
    second.abort();
    // Its body waits unread in the socket, and its client's leaving behind it: both are read
    // once its turn comes, and it is dropped then, unsent.
    const dropped = next(['record 499', 'arrived beta']);
    release('alpha');
    expect((await first.answer).status).toBe(200);
    expect(await dropped).toBe('record 499');
    expect(records.at(-1)).toMatchObject({ clientClosed: true, status: 499 });
    // A later request goes through: the one that left holds no room, and was never sent.
    const thirdArrives = next(['arrived gamma']);
    const third = post(proxy.url, 'gamma');
    await thirdArrives;
    release('gamma');
    expect((await third.answer).status).toBe(200);
    expect(arrivals).toEqual(['alpha', 'gamma']);
  });

  it('lets a lone request larger than the budget through, and the next one waits for it', async () => {
    const { proxy, arrivals, release, next } = await heldProxy();
    const large = post(proxy.url, 'alpha', 2 * ONE_LARGE_REQUEST);
    await next(['arrived alpha']);
    const small = post(proxy.url, 'beta', 1000);
    expect(await next(['waiting', 'arrived beta'])).toBe('waiting');
    const smallArrives = next(['arrived beta']);
    release('alpha');
    expect((await large.answer).status).toBe(200);
    await smallArrives;
    release('beta');
    expect((await small.answer).status).toBe(200);
    expect(arrivals).toEqual(['alpha', 'beta']);
  });

  it('answers 503 with retry-after, in the provider shape, to a request that waited past --upstream-timeout', async () => {
    // A session store that holds the first load (a slow store): its request stays in flight for as
    // long as the test wants, whatever the upstream timeout.
    const loading = signal();
    const loaded = signal();
    onTestFinished(() => loaded.resolve());
    const memory = createMemoryProxySessionStore();
    const store: ProxySessionStore = {
      ...memory,
      load: async (key) => {
        loading.resolve();
        await loaded.promise;
        return memory.load(key);
      },
    };
    const { proxy, arrivals, next, records } = await heldProxy({ store, upstreamTimeoutMs: 200 });
    const first = post(proxy.url, 'alpha');
    await loading.promise;
    const second = post(proxy.url, 'beta');
    expect(await next(['waiting', 'arrived beta'])).toBe('waiting');
    const answer = await second.answer;
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('30');
    expect(answer.headers['x-should-retry']).toBe('true');
    expect(JSON.parse(answer.body)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(records.at(-1)).toMatchObject({ status: 503, fallback: expect.stringContaining('--max-memory') });
    loaded.resolve();
    // The first timed out while its state loaded: answered 504, never forwarded, nor was the 503.
    expect((await first.answer).status).toBe(504);
    expect(arrivals).toEqual([]);
  });
});
