import type { ArchiveStore } from 'agent-compact';
import { createMemoryArchiveStore } from 'agent-compact';
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
      // A tool of the client's own: the proxy declares `recall` only beside tools.
      tools: [
        { name: 'read_file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
      ],
      messages,
    }),
  });
  await response.text();
  return response.status;
}

/**
 * The main conversation past hard, then a fork of it (which extends what the proxy kept: the main
 * conversation and its answer), then the main conversation going on after the fork started.
 */
async function mainThenFork(url: string): Promise<void> {
  const main = fork('main', 0);
  const answer: Message = { role: 'assistant', content: 'Forking two workers.' };
  for (const messages of [
    main,
    [...main, answer, { role: 'user', content: 'fork: do the first half' }],
    [...main, answer, { role: 'user', content: 'main: the workers started' }],
  ] as Message[][]) {
    expect(await post(url, messages)).toBe(200);
  }
}

describe('histories that share a session key', () => {
  it('two forks sent in turn share one compaction and continue on their own branch', async () => {
    const { server, proxy, records } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 3000, hard: 6000 },
      summarizer: 'extractive',
    });
    for (let step = 0; step < 3; step += 1) {
      for (const name of ['A', 'B']) expect(await post(proxy.url, fork(name, step))).toBe(200);
    }
    expect(server.requests.map((request) => request.outcome)).toEqual(Array(6).fill('text'));
    // B parted from A after A's compaction: it goes on from A's compacted prefix. Before, each
    // request restarted the session and summarized again; then each fork paid a summary of its own.
    expect(records.map((record) => record.layer)).toEqual(['hard', 'none', 'none', 'none', 'none', 'none']);
    expect(records.some((record) => record.restarted === true)).toBe(false);
    const [a, b] = server.requests.map((request) =>
      (request.body.messages as unknown[]).map(fingerprintMessage),
    );
    expect(b!.slice(0, -1)).toEqual(a!.slice(0, -1));
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

  it('the conversation a fork went on from continues from its own compacted prefix, without a summary', async () => {
    const { server, proxy, records } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 3000, hard: 6000 },
      summarizer: 'extractive',
    });
    await mainThenFork(proxy.url);
    expect(records.map((record) => record.layer)).toEqual(['hard', 'none', 'none']);
    expect(server.requests.filter(isSummaryRequest)).toHaveLength(0);
    const [first, , last] = server.requests.map((request) => request.body.messages as unknown[]);
    // The main conversation's prefix is the one the provider cached for it, without the fork's turn.
    expect(last!.slice(0, first!.length).map(fingerprintMessage)).toEqual(first!.map(fingerprintMessage));
    expect(JSON.stringify(last)).not.toContain('fork: do');
  });

  it('a branch recalls what the prefix it inherited names', async () => {
    let recallOf: string | undefined;
    const { server, proxy } = await startProxyOver(
      (request) => {
        const text = JSON.stringify(request.body.messages);
        const id = /\b(r\d+)\b/.exec(text)?.[1];
        if (recallOf !== undefined || !text.includes('main: the workers started') || id === undefined)
          return 'ok';
        recallOf = id;
        return {
          type: 'tool-calls',
          text: 'Looking back.',
          calls: [{ id: 'call_recall_1', name: 'recall', input: { id } }],
        };
      },
      { thresholds: { mid: 3000, hard: 6000 }, summarizer: 'extractive', recall: true },
    );
    await mainThenFork(proxy.url);
    expect(recallOf).toBeDefined();
    // The archived history comes back: the shared turns as the client sent them.
    const followUp = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(followUp).toContain('call_recall_1');
    expect(followUp).toContain('Turn 3: a long paragraph');
    expect(followUp).not.toContain('no archived item');
  });
});

describe('a branch whose archive fails to hand it the shared items', () => {
  it('starts over from the client’s messages instead of going on from a prefix it cannot recall', async () => {
    const kept = createMemoryArchiveStore();
    let failedLists = 0;
    // An archive that holds what it took but cannot list a history's items (a store gone down).
    const archive: ArchiveStore = {
      specificationVersion: 'v1',
      put: (items, options) => kept.put(items, options),
      get: (sessionId, id) => kept.get(sessionId, id),
      list: async (sessionId) => {
        const items = await kept.list(sessionId);
        if (items.length === 0) return items;
        failedLists += 1;
        throw new Error('archive unavailable');
      },
    };
    const { server, proxy, records } = await startProxyOver(() => 'ok', {
      thresholds: { mid: 3000, hard: 6000 },
      summarizer: 'extractive',
      archive,
    });
    await mainThenFork(proxy.url);
    expect(failedLists).toBeGreaterThan(0);
    // It pays its own compaction (before, it went on from a prefix naming items its archive lacked).
    expect(records.map((record) => [record.layer, record.restarted ?? false])).toEqual([
      ['hard', false],
      ['none', false],
      ['hard', true],
    ]);
    const last = server.requests.at(-1)!.body.messages as unknown[];
    expect(JSON.stringify(last)).toContain('main: the workers started');
    expect(JSON.stringify(last)).not.toContain('fork: do');
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
