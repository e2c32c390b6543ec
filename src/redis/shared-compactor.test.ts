import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSystem, loadTurn } from '../bench/suites/load.js';
import type { ArchiveItem } from '../core/archive/archive-store.js';
import { rebuildConversation } from '../core/archive/rebuild.js';
import type { CompactResult } from '../core/compactor-options.js';
import { validateMessages } from '../core/conversation/validate.js';
import type { Message, ProviderUsage } from '../core/model/messages.js';
import type { RedisServer } from '../testing/redis-server.js';
import { createSharedCompactor, type SharedCompactor } from './index.js';
import { skipRedis, startTestRedis } from './redis-server.test-utils.js';

const TURNS = 30;
/** Thresholds the load sessions cross through micro, mid and hard within {@link TURNS} turns. */
const compactor = {
  thresholds: { mid: 1500, hard: 3000 },
  micro: { cacheAware: false },
  hard: { retryDelayMs: 0 },
} as const;

let server: RedisServer;
const opened: SharedCompactor[] = [];
/** A "process": its own connections and compactors; it shares nothing with others but Redis. */
function process_(prefix: string, leaseMs?: number): SharedCompactor {
  const shared = createSharedCompactor({
    url: server.url,
    prefix,
    compactor,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  });
  opened.push(shared);
  return shared;
}

/** The provider's report for the request sent last: a fixed function of it, the same in every run. */
const usageOf = (sent: readonly Message[]): ProviderUsage => ({
  input_tokens: Math.round(JSON.stringify(sent).length / 3.7),
});

interface Run {
  outputs: string[];
  layers: string[];
  original: Message[];
  context: Message[];
}

/** Plays session `index` for TURNS turns, turn `t` served by `pick(t)`. */
async function play(index: number, pick: (turn: number) => SharedCompactor): Promise<Run> {
  const sessionId = `session-${index}`;
  const original: Message[] = [...loadTurn(index, 0)];
  let context: Message[] = [...original];
  const outputs: string[] = [];
  const layers: string[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    const added = loadTurn(index, turn);
    original.push(...added);
    const options = { system: loadSystem, ...(turn > 1 ? { usage: usageOf(context) } : {}) };
    const result: CompactResult = await pick(turn).maybeCompact(sessionId, [...context, ...added], options);
    outputs.push(JSON.stringify(result.messages));
    layers.push(result.layer);
    context = result.messages;
  }
  return { outputs, layers, original, context };
}

const untimed = ({ createdAt: _, ...item }: ArchiveItem) => item;

describe.skipIf(skipRedis)('createSharedCompactor', () => {
  beforeAll(async () => {
    server = await startTestRedis();
  });
  afterAll(async () => {
    await Promise.all(opened.map((shared) => shared.close()));
    await server?.stop();
  });

  it('a session moved between two processes at every turn boundary compacts byte for byte as one that stayed', async () => {
    const stayed = process_('stay:');
    const [first, second] = [process_('split:'), process_('split:')];
    for (const index of [0, 1, 2]) {
      const reference = await play(index, () => stayed);
      const split = await play(index, (turn) => (turn % 2 === 0 ? first : second));
      expect(split.outputs).toEqual(reference.outputs);
      expect(split.layers).toEqual(reference.layers);
      const sessionId = `session-${index}`;
      expect((await first.archive.list(sessionId)).map(untimed)).toEqual(
        (await stayed.archive.list(sessionId)).map(untimed),
      );
      expect(rebuildConversation(split.context, await second.archive.list(sessionId))).toEqual(
        split.original,
      );
      // The session went through every layer while it moved.
      for (const layer of ['micro', 'mid', 'hard']) expect(reference.layers).toContain(layer);
    }
  });

  it('serves each turn on a random one of three processes with the same outputs', async () => {
    const stayed = process_('stay3:');
    const fleet = [process_('fleet3:'), process_('fleet3:'), process_('fleet3:')];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const reference = await play(5, () => stayed);
    const spread = await play(5, () => fleet[Math.floor(random() * fleet.length)]!);
    expect(spread.outputs).toEqual(reference.outputs);
  });

  it('a call that dies after archiving (before its commit) is redone elsewhere with the same ids and output', async () => {
    const stayed = process_('die-stay:');
    const [survivor, doomed] = [process_('die:'), process_('die:')];
    const index = 3;
    const reference = await play(index, () => stayed);
    const sessionId = `session-${index}`;
    let context: Message[] = [...loadTurn(index, 0)];
    let interrupted = 0;
    for (let turn = 1; turn <= TURNS; turn++) {
      const input = [...context, ...loadTurn(index, turn)];
      const options = { system: loadSystem, ...(turn > 1 ? { usage: usageOf(context) } : {}) };
      // Every third turn the doomed process compacts (and archives) but dies before committing.
      if (turn % 3 === 0) {
        const died = await doomed
          .withSession(sessionId, async (compactor) => {
            const result = await compactor.maybeCompact(input, options);
            if (result.archived.length > 0) interrupted += 1;
            throw new Error('killed before the commit');
          })
          .catch((error: Error) => error.message);
        expect(died).toBe('killed before the commit');
      }
      const result = await survivor.maybeCompact(sessionId, input, options);
      expect(JSON.stringify(result.messages), `turn ${turn}`).toBe(reference.outputs[turn - 1]);
      context = result.messages;
    }
    expect(interrupted).toBeGreaterThan(0);
    const ids = (await survivor.archive.list(sessionId)).map((item) => item.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a retried request gets the first answer, even when the state moved with it', async () => {
    const [first, second] = [process_('retry:'), process_('retry:')];
    const input = [
      ...loadTurn(1, 0),
      ...loadTurn(1, 1),
      ...loadTurn(1, 2),
      ...loadTurn(1, 3),
      ...loadTurn(1, 4),
    ];
    const answer = await first.maybeCompact('session-1', input, { system: loadSystem, force: 'hard' });
    expect(answer.layer).toBe('hard');
    const version = (await first.stateStore.peek('session-1')).version;
    // The client never got the answer and sends the request again, to another process.
    expect(await second.maybeCompact('session-1', input, { system: loadSystem, force: 'hard' })).toEqual(
      answer,
    );
    expect((await first.stateStore.peek('session-1')).version).toBe(version);
  });

  it('the same turn delivered to two processes at once: no lost update, no duplicate archive id', async () => {
    const [first, second] = [process_('race:'), process_('race:')];
    const sessions = 20;
    await Promise.all(
      Array.from({ length: sessions }, async (_, index) => {
        const sessionId = `session-${index}`;
        const original: Message[] = [...loadTurn(index, 0)];
        let context: Message[] = [...original];
        for (let turn = 1; turn <= TURNS; turn++) {
          const added = loadTurn(index, turn);
          original.push(...added);
          const input = [...context, ...added];
          // A retried request: both processes get the turn; both answers must be usable.
          const [one, two] = await Promise.all([
            first.maybeCompact(sessionId, input, { system: loadSystem }),
            second.maybeCompact(sessionId, input, { system: loadSystem }),
          ]);
          const items = await first.archive.list(sessionId);
          for (const result of [one, two]) {
            expect(validateMessages(result.messages, { system: loadSystem })).toEqual([]);
            expect(rebuildConversation(result.messages, items)).toEqual(original);
          }
          context = turn % 2 === 0 ? one.messages : two.messages;
        }
        const ids = (await second.archive.list(sessionId)).map((item) => item.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect((await first.stateStore.peek(sessionId)).version).toBeGreaterThanOrEqual(TURNS);
      }),
    );
  });
});
