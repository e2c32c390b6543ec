import { describe, expect, it } from 'vitest';
import { createMemoizedCounter } from './memoized-counter.js';
import type { TokenCounter } from './token-counter.js';

/** A counter of words that records every text it was asked to count. */
function recording(): { inner: TokenCounter; counted: string[] } {
  const counted: string[] = [];
  const inner: TokenCounter = {
    specificationVersion: 'v1',
    name: 'words',
    countText: (text) => {
      counted.push(text);
      return text.split(' ').length;
    },
  };
  return { inner, counted };
}

describe('createMemoizedCounter', () => {
  it('gives the same counts and counts each long text once', () => {
    const { inner, counted } = recording();
    const memoized = createMemoizedCounter(inner, { minLength: 10, maxEntries: 2 });
    const long = 'one two three four five';
    expect(memoized.name).toBe('words');
    expect([memoized.countText(long), memoized.countText(long)]).toEqual([5, 5]);
    expect(counted).toEqual([long]);
    // Short texts are not cached.
    memoized.countText('a b');
    memoized.countText('a b');
    expect(counted).toEqual([long, 'a b', 'a b']);
    // A full cache is emptied, not grown.
    memoized.countText(`${long} six`);
    memoized.countText(`${long} seven`);
    memoized.countText(long);
    expect(counted.filter((text) => text === long)).toHaveLength(2);
  });

  it('keeps no more characters than maxChars: emptied before it would pass them, longer texts not kept', () => {
    const { inner, counted } = recording();
    const memoized = createMemoizedCounter(inner, { minLength: 1, maxChars: 10 });
    const [first, second, long] = ['a b c', 'd e f g', 'h i j k l m'];
    memoized.countText(first);
    memoized.countText(first);
    expect(counted).toEqual([first]);
    // 5 + 7 characters would pass 10: the cache is emptied and holds the second alone.
    memoized.countText(second);
    memoized.countText(first);
    expect(counted).toEqual([first, second, first]);
    // Longer than maxChars: counted every time, never kept.
    memoized.countText(long);
    memoized.countText(long);
    expect(counted.filter((text) => text === long)).toHaveLength(2);
  });
});
