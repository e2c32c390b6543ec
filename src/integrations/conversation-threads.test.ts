import { describe, expect, it } from 'vitest';
import type { CompactError } from '../core/model/errors.js';
import { ConversationThreads, type ThreadCall } from './conversation-threads.js';

/** A one-message call of conversation `id`. */
const call = (id: string): ThreadCall => ({
  conversationId: id,
  opening: id,
  keys: [id],
  read: () => [{ role: 'user', content: `task ${id}` }],
});

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

  it.each([0, -1, Number.NaN])('refuses maxConversations %s as INVALID_OPTIONS', (value) => {
    expect(() => new ConversationThreads({ maxConversations: value })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }) as CompactError,
    );
  });
});
