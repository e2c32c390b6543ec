import { describe, expect, it, vi } from 'vitest';
import { MemoryBudget } from './memory-budget.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { reuseLeadingMessages, reuseUnchanged, sameJsonText } from './request-reuse.js';
import { SessionCompactors } from './session-compactors.js';
import { createUpstreamClient } from './upstream/upstream-client.js';

describe('sameJsonText', () => {
  it.each([
    ['equal nested values', { a: [1, { b: 'x' }], c: null }, { a: [1, { b: 'x' }], c: null }, true],
    ['keys in another order (they serialize differently)', { a: 1, b: 2 }, { b: 2, a: 1 }, false],
    ['a missing key', { a: 1, b: undefined }, { a: 1 }, false],
    ['another string', { text: 'abc' }, { text: 'abd' }, false],
    ['an array against an object', [1], { 0: 1 }, false],
    ['arrays of other lengths', [1, 2], [1, 2, 3], false],
    ['null against an object', null, {}, false],
    ['a number against its text', 1, '1', false],
  ])('%s', (_name, a, b, same) => {
    expect(sameJsonText(a, b)).toBe(same);
    expect(sameJsonText(b, a)).toBe(same);
  });
});

describe('reuseLeadingMessages', () => {
  const parse = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown[];
  const history = [
    { role: 'user', content: 'List the files.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.ts' }] },
  ];

  it('puts the previous objects in place of the same messages sent again, and keeps the new ones', () => {
    const previous = parse(history);
    const next = parse([...history, { role: 'assistant', content: 'Done.' }]);
    const added = next[3];
    expect(reuseLeadingMessages(previous, next)).toBe(3);
    expect(next.slice(0, 3)).toEqual(previous);
    expect(next.slice(0, 3).every((message, index) => message === previous[index])).toBe(true);
    expect(next[3]).toBe(added);
  });

  it('stops at the first message that changed, even when later ones are equal again', () => {
    const previous = parse(history);
    const edited = parse(history);
    (edited[1] as { content: { input: unknown }[] }).content[0]!.input = { path: '.' };
    expect(reuseLeadingMessages(previous, edited)).toBe(1);
    expect(edited[0]).toBe(previous[0]);
    expect(edited[1]).not.toBe(previous[1]);
    expect(edited[2]).not.toBe(previous[2]);
  });

  it('keeps what follows when the history was cut shorter', () => {
    const shorter = parse(history.slice(0, 2));
    expect(reuseLeadingMessages(parse(history), shorter)).toBe(2);
    expect(shorter).toHaveLength(2);
  });
});

describe('reuseUnchanged', () => {
  const parse = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  const tool = { name: 'bash', description: 'Runs a command.', input_schema: { type: 'object' } };
  const request = (messages: unknown[], system = 'You are a coding agent.') => ({
    model: 'claude-test',
    system: [{ type: 'text', text: system }],
    tools: [tool],
    messages,
  });
  const first = [{ role: 'user', content: 'List the files.' }];
  const next = [...first, { role: 'assistant', content: 'a.ts' }, { role: 'user', content: 'Read it.' }];

  it('reuses equal top-level fields whole and the conversation message by message', () => {
    const previous = parse(request(first));
    const body = parse(request(next));
    reuseUnchanged(previous, body, 'messages');
    expect(body.tools).toBe(previous.tools);
    expect(body.system).toBe(previous.system);
    expect((body.messages as unknown[])[0]).toBe((previous.messages as unknown[])[0]);
    expect(body.messages).not.toBe(previous.messages);
    expect(JSON.stringify(body)).toBe(JSON.stringify(request(next)));
  });

  it('keeps a field that changed, and changes nothing without a previous request', () => {
    const previous = parse(request(first));
    const body = parse(request(next, 'Another prompt.'));
    const system = body.system;
    reuseUnchanged(previous, body, 'messages');
    expect(body.system).toBe(system);
    expect(body.tools).toBe(previous.tools);
    const alone = parse(request(next));
    const tools = alone.tools;
    reuseUnchanged(undefined, alone, 'messages');
    expect(alone.tools).toBe(tools);
  });

  it('gives up quietly on a value nested deeper than the stack', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 200_000; level += 1) deep = [deep];
    const previous = { model: 'm', metadata: [[deep]], messages: first };
    const body: Record<string, unknown> = { model: 'm', metadata: [deep], messages: parse({ m: first }).m };
    expect(() => reuseUnchanged(previous, body, 'messages')).not.toThrow();
  });
});

describe('SessionCompactors.reuseParsed', () => {
  const MiB = 1024 * 1024;
  const compactors = () =>
    new SessionCompactors({
      summarizer: 'extractive',
      client: createUpstreamClient({ timeoutMs: 1_000 }),
      recall: false,
      background: false,
      budget: new MemoryBudget(100 * MiB),
    });
  const turn = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      role: index % 2 ? 'assistant' : 'user',
      content: `m${index}`,
    }));
  const copy = (messages: unknown[]) => ({ messages: JSON.parse(JSON.stringify(messages)) as unknown[] });
  /** Keeps `body` as the session's last request, as if read from `bytes` bytes. */
  const remember = (sessions: SessionCompactors, key: string, body: Record<string, unknown>, bytes: number) =>
    sessions.remember(key, {
      raw: Buffer.alloc(bytes),
      body,
      layout: undefined,
      prefix: undefined,
      notCompact: 0,
    });

  it("gives a request its session's last objects, and nothing of another session's", () => {
    const sessions = compactors();
    const first = turn(3);
    remember(sessions, 'a', { messages: first }, 100);
    const second = copy(turn(5));
    sessions.reuseParsed('a', 'anthropic', second);
    expect(second.messages.slice(0, 3).every((message, index) => message === first[index])).toBe(true);
    const elsewhere = copy(turn(5));
    sessions.reuseParsed('b', 'anthropic', elsewhere);
    expect(elsewhere.messages.some((message, index) => message === first[index])).toBe(false);
  });

  it('keeps bodies within a byte budget, the least recently used dropped first, and none of a dropped session', () => {
    const sessions = compactors();
    const first = turn(3);
    remember(sessions, 'a', { messages: first }, 20 * MiB);
    remember(sessions, 'b', { messages: turn(1) }, 20 * MiB);
    const again = copy(first);
    sessions.reuseParsed('a', 'anthropic', again);
    expect(again.messages[0]).not.toBe(first[0]);

    const kept = turn(3);
    remember(sessions, 'c', { messages: kept }, 100);
    sessions.drop('c');
    const afterDrop = copy(kept);
    sessions.reuseParsed('c', 'anthropic', afterDrop);
    expect(afterDrop.messages[0]).not.toBe(kept[0]);
  });
});

describe('the proxy, request after request', () => {
  const startProxyOver = useProxyHarness();

  it('tokenizes a session’s tools, system prompt and earlier messages once, not on every request', async () => {
    const countText = vi.fn((text: string) => Math.ceil(text.length / 4));
    const { proxy } = await startProxyOver(() => 'ok', {
      counter: { specificationVersion: 'v1', name: 'spy', countText },
    });
    const tool = {
      name: 'bash',
      description: 'Runs a shell command, unchanged every turn.',
      input_schema: {},
    };
    const system = 'You are a coding agent, told so on every turn.';
    const messages: unknown[] = [{ role: 'user', content: 'The first request of the session.' }];
    for (let turn = 1; turn <= 3; turn += 1) {
      const body = JSON.stringify({ model: 'claude-test', max_tokens: 50, system, tools: [tool], messages });
      const answer = await fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'key',
          'anthropic-version': '2023-06-01',
        },
        body,
      });
      expect(answer.status).toBe(200);
      await answer.text();
      messages.push(
        { role: 'assistant', content: `Answer ${turn}.` },
        { role: 'user', content: `Turn ${turn}.` },
      );
    }
    const times = (text: string) => countText.mock.calls.filter(([item]) => item === text).length;
    expect(times(tool.description)).toBe(1);
    expect(times(system)).toBe(1);
    expect(times('The first request of the session.')).toBe(1);
  });
});
