import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { providerCompactionBoundary, splitAtProviderCompaction } from './provider-compaction.js';

const compaction: Message = {
  role: 'assistant',
  content: [{ type: 'compaction', content: 'Earlier work.', encrypted_content: 'ENC' }],
};
const user = (text: string): Message => ({ role: 'user', content: text });

describe('providerCompactionBoundary', () => {
  it.each([
    ['no compaction', [user('a')], -1],
    ['the latest of two', [user('a'), compaction, user('b'), compaction, user('c')], 3],
    [
      'an OpenAI item (encrypted only)',
      [{ role: 'assistant', content: [{ type: 'compaction', encrypted_content: 'E' }] }],
      0,
    ],
    [
      'a failed compaction',
      [{ role: 'assistant', content: [{ type: 'compaction', content: null }] }, user('a')],
      -1,
    ],
  ] as Array<[string, Message[], number]>)('%s', (_name, messages, expected) => {
    expect(providerCompactionBoundary(messages)).toBe(expected);
  });

  it('sees what is pushed onto an array it already scanned, and a replaced last message', () => {
    const messages: Message[] = [user('a'), compaction, user('b')];
    expect(providerCompactionBoundary(messages)).toBe(1);
    messages.push({ role: 'assistant', content: 'ok' }, user('c'));
    expect(providerCompactionBoundary(messages)).toBe(1);
    messages.push(compaction, user('d'));
    expect(providerCompactionBoundary(messages)).toBe(5);
    // A history rewritten in place (its last scanned message replaced) is scanned again.
    messages.splice(1, 6, user('e'));
    expect(providerCompactionBoundary(messages)).toBe(-1);
  });

  it('reads only what follows a previous scan that a new array starts with', () => {
    let reads = 0;
    const watched = (text: string): Message => ({
      role: 'user',
      get content() {
        reads++;
        return text;
      },
    });
    const previous: Message[] = [watched('a'), compaction, watched('b')];
    expect(providerCompactionBoundary(previous)).toBe(1);
    reads = 0;
    expect(providerCompactionBoundary([...previous, user('c')], previous)).toBe(1);
    expect(reads).toBe(0);
    expect(providerCompactionBoundary([...previous, compaction, user('d')], previous)).toBe(3);
    // A new array that replaced a message the previous scan saw is scanned whole.
    expect(providerCompactionBoundary([previous[0]!, user('x'), previous[2]!], previous)).toBe(-1);
    expect(providerCompactionBoundary([previous[0]!], previous)).toBe(-1);
    // The previous array rewritten in place after its scan: a copy of it is scanned whole.
    const rewritten: Message[] = [user('a'), user('b')];
    expect(providerCompactionBoundary(rewritten)).toBe(-1);
    rewritten[1] = compaction;
    expect(providerCompactionBoundary([...rewritten, user('c')], rewritten)).toBe(1);
  });

  it('splits into the head sent as it came and the rest', () => {
    const messages = [user('a'), compaction, user('b')];
    const { head, rest } = splitAtProviderCompaction(messages);
    expect(head).toEqual([user('a'), compaction]);
    expect(rest).toEqual([user('b')]);
    expect(splitAtProviderCompaction([user('a')]).head).toEqual([]);
  });
});
