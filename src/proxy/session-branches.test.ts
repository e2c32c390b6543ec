import { describe, expect, it } from 'vitest';
import { isSummaryRequest } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { loadBranch, rootSessionKey } from './session-branches.js';
import { nextState } from './session-history.js';
import { fingerprintMessage } from './session-identity.js';
import { createMemoryProxySessionStore } from './session-store.js';

const startProxyOver = useProxyHarness();

type Message = { role: 'user' | 'assistant'; content: string };

/** The history two forks share: past the hard threshold in plain text turns. */
const shared: Message[] = Array.from({ length: 12 }, (_, index) => ({
  role: index % 2 === 0 ? 'user' : 'assistant',
  content: `Turn ${index}: ${'a long paragraph of notes about the code. '.repeat(60)}`,
}));

/** Fork `name`'s history after `steps` of its own turns (Claude Code's forked subagents). */
function fork(name: string, steps: number): Message[] {
  const own = Array.from({ length: steps }, (_, index): Message[] => [
    { role: 'user', content: `${name}: step ${index + 1}` },
    { role: 'assistant', content: 'ok' },
  ]).flat();
  return [...shared, ...own, { role: 'user', content: `${name}: step ${steps + 1}` }];
}

async function post(url: string, messages: Message[]): Promise<number> {
  const response = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk-test',
      'anthropic-version': '2023-06-01',
    },
    // One client session id for both: the proxy keys them alike (same id, same first message).
    body: JSON.stringify({
      model: 'claude-test',
      max_tokens: 10,
      metadata: { user_id: 'session-1' },
      messages,
    }),
  });
  await response.text();
  return response.status;
}

describe('histories that share a session key', () => {
  it('two forks sent in turn are each compacted once and continue on their own branch', async () => {
    const { server, proxy, records } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 3000, hard: 6000 },
      summarizer: 'extractive',
    });
    for (let step = 0; step < 3; step += 1) {
      for (const name of ['A', 'B']) expect(await post(proxy.url, fork(name, step))).toBe(200);
    }
    expect(server.requests.map((request) => request.outcome)).toEqual(Array(6).fill('text'));
    // One summary per fork; before, each request restarted the session and summarized again.
    expect(records.map((record) => record.layer)).toEqual(['hard', 'hard', 'none', 'none', 'none', 'none']);
    expect(records.map((record) => record.restarted === true)).toEqual([
      false,
      true,
      false,
      false,
      false,
      false,
    ]);
    // Each fork's requests extend its own previous one upstream, and never carry the other's turns.
    const upstream = server.requests.filter((request) => !isSummaryRequest(request));
    for (const [index, name, other] of [
      [0, 'A', 'B'],
      [1, 'B', 'A'],
    ] as const) {
      const own = [index, index + 2, index + 4].map(
        (at) => (upstream[at]!.body.messages as unknown[]).map(fingerprintMessage) as string[],
      );
      for (let step = 1; step < own.length; step += 1) {
        expect(own[step]!.slice(0, own[step - 1]!.length)).toEqual(own[step - 1]);
      }
      const text = JSON.stringify(own);
      expect(text).toContain(`${name}: step 3`);
      expect(text).not.toContain(`${other}: step`);
    }
    // Logged as the client's one session.
    expect(new Set(records.map((record) => record.session)).size).toBe(1);
  });
});

describe('loadBranch', () => {
  /** Saves `messages` as sent compacted (a state with a prefix of its own) under the branch it loads. */
  async function send(store: ReturnType<typeof createMemoryProxySessionStore>, messages: Message[]) {
    const branch = await loadBranch(store, 'key:owner:client:s', 'anthropic', messages);
    const state = nextState(branch.input.fingerprints, messages, [{ role: 'user', content: 'summary' }]);
    await store.save(branch.key, { ...state, ...branch.carried });
    return branch;
  }

  it('names its branches by the session key (compactor events join the session’s records), up to 8 kept', async () => {
    const store = createMemoryProxySessionStore();
    const first = await send(store, fork('A', 0));
    expect(first.key).toBe('key:owner:client:s');
    const branches = [];
    for (let index = 0; index < 9; index += 1) branches.push(await send(store, fork(`B${index}`, 0)));
    expect(branches.every((branch) => branch.restarted && rootSessionKey(branch.key) === first.key)).toBe(
      true,
    );
    expect(new Set(branches.map((branch) => branch.key)).size).toBe(9);
    // The first history and the 8 latest branches go on; the oldest branch was forgotten.
    expect((await loadBranch(store, first.key, 'anthropic', fork('A', 1))).key).toBe(first.key);
    expect((await loadBranch(store, first.key, 'anthropic', fork('B8', 1))).key).toBe(branches[8]!.key);
    expect(await store.load(branches[0]!.key)).toBeUndefined();
  });
});
