import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HEAP_BYTES_PER_JSON_BYTE, MemoryBudget } from './memory-budget.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { startProxy } from './proxy-server.js';
import { budgetKey, SessionCompactors } from './session-compactors.js';
import { SessionStates } from './session-state.js';
import { createUpstreamClient } from './upstream/upstream-client.js';

const answer = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-test',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 10, output_tokens: 1 },
};

/** A system prompt the size of an agent's, so bodies are past the size worth reusing. */
const system = [{ type: 'text', text: 'You are a coding agent. '.repeat(1_000) }];

function bodyOf(messages: unknown[]) {
  return { model: 'claude-test', max_tokens: 50, system, messages };
}

const alice = { 'x-api-key': 'alice' };

function firstMessage(body: Record<string, unknown> | undefined): unknown {
  return (body?.messages as unknown[] | undefined)?.[0];
}

/** Reads `raw` as the proxy does and keeps it as the last request of `sessionKey`. */
function readAndKeep(states: SessionStates, sessionKey: string, raw: Buffer, headers = alice) {
  const read = states.read('anthropic', raw, headers);
  if (read) states.keep(sessionKey, read);
  return read?.body;
}

const serialized = (messages: unknown[]) => Buffer.from(JSON.stringify(bodyOf(messages)));
const first = [{ role: 'user', content: 'Read the file.' }];
const next = [...first, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Go on.' }];

describe('SessionStates', () => {
  it('reads a body that repeats a recent one from its new bytes, with the earlier objects', () => {
    const states = new SessionStates();
    const earlier = readAndKeep(states, 'a', serialized(first));
    const raw = serialized(next);
    // Another session of the same user that starts alike: tried by its first bytes.
    const body = readAndKeep(states, 'b', raw);
    expect(body).toEqual(JSON.parse(raw.toString()));
    expect(body?.system).toBe(earlier?.system);
    expect(firstMessage(body)).toBe(firstMessage(earlier));
  });

  it("never gives one user's objects to another", () => {
    const states = new SessionStates();
    const raw = serialized(first);
    const earlier = readAndKeep(states, 'a', raw);
    const other = readAndKeep(states, 'b', raw, { 'x-api-key': 'bob' });
    expect(other).toEqual(earlier);
    expect(other?.system).not.toBe(earlier?.system);
  });

  it("never gives one ?key= user's objects to another (Gemini's key in the query)", () => {
    const states = new SessionStates();
    const raw = serialized(first);
    const url = (key: string) => new URL(`http://proxy.invalid/v1beta/models/m:generateContent?key=${key}`);
    const earlier = states.read('anthropic', raw, {}, url('alice'));
    if (earlier) states.keep('a', earlier);
    const other = states.read('anthropic', raw, {}, url('bob'));
    expect(other?.body).toEqual(earlier?.body);
    expect(other?.body.system).not.toBe(earlier?.body.system);
  });

  it('parses a small body whole every time, and a body that is not an object as nothing', () => {
    const states = new SessionStates();
    const small = Buffer.from(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
    const earlier = readAndKeep(states, 'a', small);
    expect(readAndKeep(states, 'a', small)?.messages).not.toBe(earlier?.messages);
    expect(states.read('anthropic', Buffer.from(JSON.stringify([system, system])), alice)).toBeUndefined();
    const broken = Buffer.from(`${JSON.stringify(bodyOf([]))}}`);
    expect(states.read('anthropic', broken, alice)).toBeUndefined();
  });

  it('reads nothing from a session it forgot', () => {
    const reads: string[] = [];
    const states = new SessionStates((how) => reads.push(how));
    readAndKeep(states, 'a', serialized(first));
    states.delete('a');
    readAndKeep(states, 'a', serialized(next));
    expect(reads).toEqual(['whole', 'whole']);
    expect(states.size).toBe(1);
  });
});

describe('SessionCompactors: one state per session', () => {
  const MiB = 1024 * 1024;
  function sessions(maxBytes = 100 * MiB) {
    const reads: string[] = [];
    const budget = new MemoryBudget(maxBytes);
    const states = new SessionStates((how) => reads.push(how));
    const compactors = new SessionCompactors({
      summarizer: 'extractive',
      client: createUpstreamClient({ timeoutMs: 1_000 }),
      recall: false,
      background: false,
      budget,
      states,
    });
    /** One request as `runExchange` handles it: read, reuse, the compactor, kept. */
    const send = (sessionKey: string, raw: Buffer, headers = alice) => {
      const read = states.read('anthropic', raw, headers);
      if (read === undefined) throw new Error('not a body');
      compactors.reuseParsed(sessionKey, 'anthropic', read.body);
      compactors.get(sessionKey, undefined);
      compactors.remember(sessionKey, read);
      return read.body;
    };
    return { budget, compactors, send, reads };
  }

  it('charges a session for its last request only, held once, in one budget entry', () => {
    const { budget, compactors, send } = sessions();
    send('a', serialized(first));
    const raw = serialized(next);
    send('a', raw);
    send('b', raw, { 'x-api-key': 'bob' });
    // No earlier body, no second copy for the reuse: what one request of the same bytes costs.
    expect(budget.bytesOf(budgetKey('a'))).toBe(budget.bytesOf(budgetKey('b')));
    expect(budget.used).toBe(budget.bytesOf(budgetKey('a')) * 2);
    expect(compactors.states.size).toBe(2);
    expect(compactors.states.bytesOf('a')).toBe(raw.length * (1 + HEAP_BYTES_PER_JSON_BYTE));
  });

  it('reads a body whole after its session was evicted, to the same objects as read incrementally', () => {
    const kept = sessions();
    send(kept, 'a', first);
    const incremental = send(kept, 'a', next);
    // Room for one session: the second evicts the first.
    const small = sessions(Math.round(kept.budget.used * 1.5));
    send(small, 'a', first);
    // Another user's: never a body to read the first one's from.
    small.send('b', serialized([{ role: 'user', content: 'Another task.' }]), { 'x-api-key': 'bob' });
    expect(small.budget.evicted).toBe(1);
    expect(small.compactors.size).toBe(1);
    const whole = send(small, 'a', next);
    expect(kept.reads).toEqual(['whole', 'incremental']);
    expect(small.reads).toEqual(['whole', 'whole', 'whole']);
    expect(whole).toEqual(incremental);
  });

  function send(setup: ReturnType<typeof sessions>, sessionKey: string, messages: unknown[]) {
    return setup.send(sessionKey, serialized(messages));
  }
});

describe('the proxy, with bodies read from their new bytes', () => {
  const startProxyOver = useProxyHarness();

  /** The bodies the model received for a session sent as `serialize` writes it, through all three layers. */
  async function upstreamBodies(serialize: (body: unknown) => string) {
    const { proxy, server } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 12_000, hard: 20_000 },
      summarizer: 'extractive',
    });
    const messages: unknown[] = [{ role: 'user', content: 'Fix the failing test.' }];
    for (let turn = 1; turn <= 12; turn += 1) {
      const answer = await fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...alice, 'anthropic-version': '2023-06-01' },
        body: serialize(bodyOf(messages)),
      });
      expect(answer.status).toBe(200);
      await answer.text();
      const id = `toolu_${turn}`;
      messages.push(
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id, name: 'read', input: { path: `f${turn}.ts` } }],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: id, content: `line ${turn}\n`.repeat(400) }],
        },
      );
    }
    return { bodies: server.requests.map((request) => request.body), read: (await proxy.stats()).bodies };
  }

  it('sends the model what it sends for the same session parsed whole every time', async () => {
    // Indented bodies are never compact JSON, so the proxy parses each of them whole.
    const whole = await upstreamBodies((body) => JSON.stringify(body, null, 1));
    const reused = await upstreamBodies((body) => JSON.stringify(body));
    expect(reused.bodies).toEqual(whole.bodies);
    expect(whole.read).toEqual({ incremental: 0, whole: 12 });
    expect(reused.read).toEqual({ incremental: 11, whole: 1 });
    const sizes = whole.bodies.map((body) => JSON.stringify(body).length);
    // Compaction ran: some request went out smaller than the one before it.
    expect(sizes.some((size, index) => index > 0 && size < (sizes[index - 1] as number))).toBe(true);
  });
});

describe('the proxy, with bodies the incremental read cannot lay out', () => {
  const headers = { 'content-type': 'application/json', ...alice, 'anthropic-version': '2023-06-01' };

  it('forwards a body of 16 KiB or more nested 7,000 levels deep instead of failing it', async () => {
    // A bare upstream: the scripted server itself cannot walk such a body.
    const received: number[] = [];
    const upstream = createServer((incoming, response) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        received.push(Buffer.concat(chunks).length);
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const proxy = await startProxy({
      upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      summarizer: 'extractive',
    });
    try {
      const deep = `${'['.repeat(7_000)}${']'.repeat(7_000)}`;
      const messages = [{ role: 'user', content: 'Read the file.' }];
      const first = JSON.stringify(bodyOf(messages)).replace(/\}$/, `,"metadata":{"deep":${deep}}}`);
      expect(first.length).toBeGreaterThan(16 * 1024);
      // Then a deep message added: read from the earlier body's bytes, or whole.
      const second = first.replace(
        /\}\],"metadata"/,
        `},{"role":"assistant","content":[{"type":"text","text":"x","deep":${deep}}]}],"metadata"`,
      );
      for (const body of [first, second]) {
        const answered = await fetch(`${proxy.url}/v1/messages`, { method: 'POST', headers, body });
        expect(answered.status).toBe(200);
        await answered.text();
      }
      expect(received).toHaveLength(2);
    } finally {
      await proxy.close();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });

  it('reads bodies from their new bytes again after one body that was not compact JSON', () => {
    const reads: string[] = [];
    const states = new SessionStates((how) => reads.push(how));
    const messages: unknown[] = [{ role: 'user', content: 'Read the file.' }];
    const send = (text: string) => readAndKeep(states, 'a', Buffer.from(text));
    // The first body with a field written with a space (not as JSON.stringify writes it): no layout.
    send(JSON.stringify(bodyOf(messages)).replace(/\}$/, ', "stream": false}'));
    for (let turn = 0; turn < 3; turn += 1) {
      messages.push({ role: 'user', content: `turn ${turn}` });
      send(JSON.stringify(bodyOf(messages)));
    }
    expect(reads).toEqual(['whole', 'whole', 'incremental', 'incremental']);
  });
});
