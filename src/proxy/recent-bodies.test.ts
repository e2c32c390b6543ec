import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { startProxy } from './proxy-server.js';
import { RecentBodies } from './recent-bodies.js';

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

describe('RecentBodies', () => {
  it('reads a body that repeats a recent one from its new bytes, with the earlier objects', () => {
    const bodies = new RecentBodies();
    const first = [{ role: 'user', content: 'Read the file.' }];
    const earlier = bodies.parse('anthropic', Buffer.from(JSON.stringify(bodyOf(first))), alice);
    const next = bodyOf([
      ...first,
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Go on.' },
    ]);
    const raw = Buffer.from(JSON.stringify(next));
    const body = bodies.parse('anthropic', raw, alice);
    expect(body).toEqual(JSON.parse(raw.toString()));
    expect(body?.system).toBe(earlier?.system);
    expect(firstMessage(body)).toBe(firstMessage(earlier));
  });

  it("never gives one user's objects to another", () => {
    const bodies = new RecentBodies();
    const messages = [{ role: 'user', content: 'Read the file.' }];
    const raw = Buffer.from(JSON.stringify(bodyOf(messages)));
    const earlier = bodies.parse('anthropic', raw, alice);
    const other = bodies.parse('anthropic', raw, { 'x-api-key': 'bob' });
    expect(other).toEqual(earlier);
    expect(other?.system).not.toBe(earlier?.system);
  });

  it('parses a small body whole every time, and a body that is not an object as nothing', () => {
    const bodies = new RecentBodies();
    const small = Buffer.from(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
    const earlier = bodies.parse('anthropic', small, alice);
    expect(bodies.parse('anthropic', small, alice)?.messages).not.toBe(earlier?.messages);
    expect(bodies.parse('anthropic', Buffer.from(JSON.stringify([system, system])), alice)).toBeUndefined();
    const broken = Buffer.from(`${JSON.stringify(bodyOf([]))}}`);
    expect(bodies.parse('anthropic', broken, alice)).toBeUndefined();
  });
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
    const bodies = new RecentBodies((how) => reads.push(how));
    const messages: unknown[] = [{ role: 'user', content: 'Read the file.' }];
    const send = (serialized: string) => bodies.parse('anthropic', Buffer.from(serialized), alice);
    // The first body with a field written with a space (not as JSON.stringify writes it): no layout.
    send(JSON.stringify(bodyOf(messages)).replace(/\}$/, ', "stream": false}'));
    for (let turn = 0; turn < 3; turn += 1) {
      messages.push({ role: 'user', content: `turn ${turn}` });
      send(JSON.stringify(bodyOf(messages)));
    }
    expect(reads).toEqual(['whole', 'whole', 'incremental', 'incremental']);
  });
});
