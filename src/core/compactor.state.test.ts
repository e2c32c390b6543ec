import { describe, expect, it } from 'vitest';
import type { ArchiveStore } from './archive/archive-store.js';
import { createMemoryArchiveStore } from './archive/memory-archive-store.js';
import { createMemorySessionStateStore } from './archive/memory-session-state-store.js';
import type { SessionStateStore } from './archive/session-state-store.js';
import { createCompactor } from './compactor.js';
import type { Compactor, CompactorOptions } from './compactor-options.js';
import { agentSession, toolTurn } from './conversation/session-builder.test-utils.js';
import { CompactError } from './model/errors.js';
import type { Message, ProviderUsage } from './model/messages.js';
import { createHeuristicCounter } from './tokens/heuristic-counter.js';
import { countMessageTokens } from './tokens/message-tokens.js';

const counter = createHeuristicCounter();
const system = 'You are a careful coding agent.';
const tools = [{ name: 'bash', description: 'Run a command', input_schema: { type: 'object' } }];
const options: CompactorOptions = {
  sessionId: 'moving-session',
  thresholds: { mid: 6000, hard: 12_000 },
  micro: { clearAtLeast: 2500 },
};

/**
 * An agent loop of `turns` calls: sends what the compactor returns, the provider reports usage
 * (a tenth more than the local count, plus fixed overhead), and a tool turn of varying size follows.
 * `compactorFor(turn)` picks the compactor of each call. Returns every result as JSON.
 */
async function runSession(turns: number, compactorFor: (turn: number) => Compactor): Promise<string[]> {
  const results: string[] = [];
  let messages: Message[] = agentSession(1);
  let usage: ProviderUsage | undefined;
  for (let turn = 2; turn <= turns; turn++) {
    const force = turn === 40 ? 'hard' : turn === 25 ? 'mid' : undefined;
    const result = await compactorFor(turn).maybeCompact(messages, {
      system,
      tools,
      ...(usage ? { usage } : {}),
      ...(force ? { force } : {}),
    });
    results.push(JSON.stringify(result));
    const local = result.messages.reduce((sum, message) => sum + countMessageTokens(message, counter), 0);
    usage = { input_tokens: Math.round(local * 1.1) + 400 };
    const text =
      turn % 3 === 0
        ? `Step ${turn}: ${'I read the output and plan the next change. '.repeat(30)}`
        : undefined;
    messages = [
      ...result.messages,
      ...toolTurn(turn, { lines: 20 + ((turn * 37) % 140), ...(text ? { text } : {}) }),
    ];
  }
  return results;
}

describe('a session moving between compactors through a SessionStateStore', () => {
  it('gives byte-identical results split across two compactors at every turn boundary', async () => {
    const single = await runSession(
      60,
      (
        (compactor) => () =>
          compactor
      )(createCompactor(options)),
    );
    const layers = single.map((json) => (JSON.parse(json) as { layer: string }).layer);
    // The run exercises every layer, so every piece of state is carried across.
    expect(new Set(layers)).toEqual(new Set(['none', 'micro', 'mid', 'hard']));

    const archive: ArchiveStore = createMemoryArchiveStore();
    const stateStore: SessionStateStore = createMemorySessionStateStore();
    const pair = [
      createCompactor({ ...options, archive, stateStore }),
      createCompactor({ ...options, archive, stateStore }),
    ] as const;
    expect(await runSession(60, (turn) => pair[turn % 2]!)).toEqual(single);

    // A new compactor (a new process) for every call.
    const shared = { archive: createMemoryArchiveStore(), stateStore: createMemorySessionStateStore() };
    expect(await runSession(60, () => createCompactor({ ...options, ...shared }))).toEqual(single);
  });

  it('rejects a save over a moved version with STATE_CONFLICT and runs the call again', async () => {
    const stateStore = createMemorySessionStateStore();
    let conflicts = 0;
    const flaky: SessionStateStore = {
      ...stateStore,
      async save(sessionId, state, saveOptions) {
        try {
          return await stateStore.save(sessionId, state, saveOptions);
        } catch (error) {
          if (CompactError.isInstance(error) && error.code === 'STATE_CONFLICT') conflicts++;
          throw error;
        }
      },
    };
    const archive = createMemoryArchiveStore();
    const first = createCompactor({ ...options, archive, stateStore: flaky });
    const second = createCompactor({ ...options, archive, stateStore: flaky });
    const messages = agentSession(3);
    await first.maybeCompact(messages, { system });
    await second.maybeCompact(messages, { system, usage: { input_tokens: 3000 } });
    // `first` still holds version 1; its save conflicts, it reloads and runs again.
    const result = await first.maybeCompact([...messages, ...toolTurn(4)], { system });
    expect(conflicts).toBe(1);
    expect((await stateStore.load('moving-session'))?.version).toBe(3);
    expect(result.tokensBefore).toBeGreaterThan(0);
  });

  it('saves only the calls that changed the state, also right after a restore', async () => {
    const stateStore = createMemorySessionStateStore();
    const archive = createMemoryArchiveStore();
    const messages = agentSession(3);
    const first = createCompactor({ ...options, archive, stateStore });
    const { messages: sent } = await first.maybeCompact(messages, { system, tools });
    await first.maybeCompact(sent, { system, tools });
    expect((await stateStore.load('moving-session'))?.version).toBe(1);
    // A second compactor restores the state; the same request again changes nothing to save.
    const second = createCompactor({ ...options, archive, stateStore });
    await second.maybeCompact(structuredClone(sent), { system, tools });
    expect((await stateStore.load('moving-session'))?.version).toBe(1);
    await second.maybeCompact([...sent, ...toolTurn(4)], { system, tools });
    expect((await stateStore.load('moving-session'))?.version).toBe(2);
  });
});

describe('the now option', () => {
  it.each(['mid', 'hard'] as const)('dates the items a %s compaction archives', async (force) => {
    const archive = createMemoryArchiveStore();
    const compactor = createCompactor({ archive, sessionId: 'clock' });
    const now = Date.UTC(2030, 0, 2, 3, 4, 5);
    const result = await compactor.maybeCompact(agentSession(8, { lines: 40 }), { force, now });
    expect(result.archived.length).toBeGreaterThan(0);
    const items = await archive.list('clock');
    expect(items.map((item) => item.createdAt)).toEqual(items.map(() => now));
  });
});
