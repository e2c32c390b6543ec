import { describe, expect, it } from 'vitest';
import { createMemoizedCounter } from './memoized-counter.js';
import type { TokenCounter } from './token-counter.js';

describe('createMemoizedCounter', () => {
  it('gives the same counts and counts each long text once', () => {
    const counted: string[] = [];
    const inner: TokenCounter = {
      specificationVersion: 'v1',
      name: 'words',
      countText: (text) => {
        counted.push(text);
        return text.split(' ').length;
      },
    };
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
});
