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
  /**
   * The cache is emptied when the texts it holds would pass this many characters in all (a text
   * longer than this is counted directly). The cache keeps each text it counted alive: in a process
   * that parses every request anew (a proxy), that is a copy of each, whoever else dropped it.
   * @default Infinity
   */
  maxChars?: number;
}

/**
 * Wraps a counter with a cache of the counts of long texts; same `name`, same counts.
 *
 * @example
 * const counter = createMemoizedCounter(createTiktokenCounter(), { maxEntries: 2000 });
 */
export function createMemoizedCounter(
  counter: TokenCounter,
  { minLength = 64, maxEntries = 50_000, maxChars = Number.POSITIVE_INFINITY }: MemoizedCounterOptions = {},
): TokenCounter {
  const counts = new Map<string, number>();
  let chars = 0;
  return {
    specificationVersion: 'v1',
    name: counter.name,
    countText(text) {
      if (text.length < minLength || text.length > maxChars) return counter.countText(text);
      let tokens = counts.get(text);
      if (tokens === undefined) {
        tokens = counter.countText(text);
        if (counts.size >= maxEntries || chars + text.length > maxChars) {
          counts.clear();
          chars = 0;
        }
        counts.set(text, tokens);
        chars += text.length;
      }
      return tokens;
    },
  };
}
