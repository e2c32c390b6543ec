/**
 * A {@link TokenCounter} that remembers the counts of long texts. The same tool output is counted
 * more than once — by the message count and by the compactor's index of what it could mask, by
 * every strategy of a replay — and tokenizing is the main cost. Counting is a pure function of the
 * text, so the cache changes no figure.
 */
import type { TokenCounter } from './token-counter.js';

/** Options of {@link createMemoizedCounter}. */
export interface MemoizedCounterOptions {
  /** Texts shorter than this are counted directly (hashing them costs about as much). @default 64 */
  minLength?: number;
  /** The cache is emptied when it holds this many texts. @default 50000 */
  maxEntries?: number;
}

/**
 * Wraps a counter with a cache of the counts of long texts; same `name`, same counts.
 *
 * @example
 * const counter = createMemoizedCounter(createTiktokenCounter(), { maxEntries: 2000 });
 */
export function createMemoizedCounter(
  counter: TokenCounter,
  { minLength = 64, maxEntries = 50_000 }: MemoizedCounterOptions = {},
): TokenCounter {
  const counts = new Map<string, number>();
  return {
    specificationVersion: 'v1',
    name: counter.name,
    countText(text) {
      if (text.length < minLength) return counter.countText(text);
      let tokens = counts.get(text);
      if (tokens === undefined) {
        tokens = counter.countText(text);
        if (counts.size >= maxEntries) counts.clear();
        counts.set(text, tokens);
      }
      return tokens;
    },
  };
}
