import { describe, expect, it } from 'vitest';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { RecentBodies } from './recent-bodies.js';

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
