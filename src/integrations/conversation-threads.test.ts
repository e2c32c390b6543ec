import { describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import type { CompactionEvent } from '../core/events.js';
import type { CompactError } from '../core/model/errors.js';
import type { Message } from '../core/model/messages.js';
import { ConversationThreads, type ThreadCall } from './conversation-threads.js';

/** A one-message call of conversation `id`. */
const call = (id: string): ThreadCall => ({
  conversationId: id,
  opening: id,
  keys: [id],
  read: () => [{ role: 'user', content: `task ${id}` }],
});

/**
 * A user's chat that opens with "hi" and goes on with reads of their own files: `call(turns)` is the
 * call a framework makes after `turns` model turns, without a conversation id.
 */
function chat(user: string, word: string) {
  const messages = (turns: number): Message[] => {
    const list: Message[] = [{ role: 'user', content: 'hi' }];
    for (let turn = 1; turn < turns; turn++) {
      const id = `${user}-${turn}`;
      list.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'read', input: { path: `${user}/${turn}.txt` } }],
      });
      list.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: `${word} `.repeat(200) }],
      });
    }
    return list;
  };
  return {
    call(turns: number): ThreadCall {
      const list = messages(turns);
      return {
        opening: ['system', list[0]],
        keys: list.map((message) => JSON.stringify(message)),
        read: (from) => list.slice(from),
      };
    },
  };
}

describe('ConversationThreads', () => {
  it('keeps at most maxConversations conversations, dropping the least recently used', async () => {
    const threads = new ConversationThreads({ maxConversations: 2 });
    await threads.compact(call('a'));
    await threads.compact(call('b'));
    await threads.compact(call('a'));
    await threads.compact(call('c'));
    expect(threads.compactorFor('a')).toBeDefined();
    expect(threads.compactorFor('b')).toBeUndefined();
    expect(threads.compactorFor('c')).toBeDefined();
  });

  it('keeps 1,000 conversations by default, not every conversation a server ever saw', async () => {
    const threads = new ConversationThreads({});
    for (let index = 0; index <= 1000; index++) await threads.compact(call(`c${index}`));
    expect(threads.compactorFor('c0')).toBeUndefined();
    expect(threads.compactorFor('c1')).toBeDefined();
    expect(threads.compactorFor('c1000')).toBeDefined();
  });

  it('never gives a call the thread of another chat that opens alike', async () => {
    const archive = createMemoryArchiveStore();
    const threads = new ConversationThreads({ thresholds: { mid: 600, hard: 1200 }, archive });
    const alice = chat('alice', 'SECRET-ALICE');
    const bob = chat('bob', 'bob-notes');
    // Both open with "hi"; Alice's chat runs long enough to be summarised first.
    await threads.compact(alice.call(1));
    await threads.compact(bob.call(1));
    await threads.compact(alice.call(12));
    const bobs = await threads.compact(bob.call(12));
    expect(JSON.stringify(bobs)).not.toContain('SECRET-ALICE');
    expect(JSON.stringify(bobs)).toContain('bob-notes');
    const items = await Promise.all(
      ((await archive.sessions?.()) ?? []).map(async (session) =>
        JSON.stringify(await archive.list(session)),
      ),
    );
    expect(items.filter((text) => text.includes('SECRET-ALICE') && text.includes('bob-notes'))).toEqual([]);
  });

  it('continues the thread whose last call the new call extends, whichever user called last', async () => {
    const threads = new ConversationThreads({});
    const alice = chat('alice', 'a');
    const bob = chat('bob', 'b');
    const compacted: Message[][] = [];
    for (let turn = 1; turn <= 3; turn++) {
      compacted.push(await threads.compact(alice.call(turn)));
      compacted.push(await threads.compact(bob.call(turn)));
    }
    // Nothing to compact at these sizes: each user's call comes back as that user's messages.
    expect(compacted.map((messages) => messages.length)).toEqual([1, 1, 3, 3, 5, 5]);
    expect(JSON.stringify(compacted.at(-1))).not.toContain('alice');
  });

  it('continues a chat whose app sends only its last N messages: a summary as it grows, not one a call', async () => {
    const events: CompactionEvent[] = [];
    const threads = new ConversationThreads({
      thresholds: { mid: 3000, hard: 5000 },
      onEvent: (event) => events.push(event),
    });
    const history: Message[] = [];
    const sent: Message[][] = [];
    for (let turn = 0; turn < 30; turn++) {
      history.push({ role: 'user', content: `Log ${turn}:\n${`[${turn}] compute failed\n`.repeat(150)}` });
      // Once the history is longer than the window, every call opens with another message.
      const window = history.slice(-25);
      sent.push(
        await threads.compact({
          opening: window[0],
          keys: window.map((message) => JSON.stringify(message)),
          read: (from) => window.slice(from),
        }),
      );
      history.push({ role: 'assistant', content: `Log ${turn} fails in compute.` });
    }
    const hardRuns = events.filter((event) => event.type === 'compaction-end' && event.layer === 'hard');
    expect(hardRuns.length).toBeGreaterThan(1);
    expect(hardRuns.length).toBeLessThan(10);
    for (const [turn, messages] of sent.entries()) {
      expect(messages.length).toBeLessThanOrEqual(25);
      expect(JSON.stringify(messages.at(-1))).toContain(`Log ${turn}:`);
    }
  });

  it('continues the chat, not a side call that sent its history plus a message of its own', async () => {
    const events: CompactionEvent[] = [];
    const threads = new ConversationThreads({
      thresholds: { mid: 3000, hard: 5000 },
      onEvent: (event) => events.push(event),
    });
    const callOf = (messages: Message[]): ThreadCall => ({
      opening: messages[0],
      keys: messages.map((message) => JSON.stringify(message)),
      read: (from) => messages.slice(from),
    });
    const history: Message[] = [];
    for (let turn = 0; turn < 20; turn++) {
      history.push({ role: 'user', content: `Log ${turn}:\n${`[${turn}] compute failed\n`.repeat(150)}` });
      await threads.compact(callOf(history));
      history.push({ role: 'assistant', content: `Log ${turn} fails in compute.` });
      // A title for the chat, asked with its history.
      await threads.compact(callOf([...history, { role: 'user', content: 'Title this chat.' }]));
    }
    const hardRuns = events.filter((event) => event.type === 'compaction-end' && event.layer === 'hard');
    expect(hardRuns.length).toBeGreaterThan(0);
    expect(hardRuns.length).toBeLessThan(6);
  });

  it.each([0, -1, Number.NaN])('refuses maxConversations %s as INVALID_OPTIONS', (value) => {
    expect(() => new ConversationThreads({ maxConversations: value })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }) as CompactError,
    );
  });

  it.each([
    ['offered, recall unset', ['read_file', 'recall'], undefined, true],
    ['offered, recall: false', ['recall'], false, false],
    ['not offered, recall unset', ['read_file'], undefined, false],
    ['not offered, recall: true', ['read_file'], true, false],
    ['tools not told, recall unset', undefined, undefined, false],
    ['tools not told, recall: true', undefined, true, true],
  ])('names archive ids only for a model that can call recall (%s)', async (_name, tools, recall, named) => {
    const threads = new ConversationThreads({
      contextWindow: 48_000,
      ...(recall === undefined ? {} : { recall }),
    });
    const compacted = await threads.compact({
      ...readingCall('r'),
      ...(tools === undefined ? {} : { toolNames: () => tools }),
    });
    const text = JSON.stringify(compacted);
    expect(text).toContain('[Previous: used read_file');
    expect(/recall r\d+/.test(text)).toBe(named);
  });

  it("asks for the tools on a conversation's first call only", async () => {
    const threads = new ConversationThreads({});
    let asked = 0;
    const toolNames = () => {
      asked++;
      return ['recall'];
    };
    await threads.compact({ ...call('a'), toolNames });
    await threads.compact({ ...call('a'), toolNames });
    await threads.compact({ ...call('b'), toolNames });
    expect(asked).toBe(2);
  });
});

/** A conversation `id` of 30 file reads of about 1,000 tokens each. */
function readingCall(id: string): ThreadCall {
  const messages: Message[] = [{ role: 'user', content: 'Read the files.' }];
  for (let index = 0; index < 30; index++) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${index}`, name: 'read_file', input: { path: `f${index}.ts` } }],
    });
    messages.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: `t${index}`,
          content: `export const v${index} = 1;\n`.repeat(200),
        },
      ],
    });
  }
  return {
    conversationId: id,
    opening: id,
    keys: messages.map((message) => JSON.stringify(message)),
    read: () => messages,
  };
}
