/**
 * The proxy's figures: the tokens of a whole request body (system, tools, messages), counted the
 * same way for what the client sent and for what went upstream. The compactor's own counts are of
 * its input, which after a compaction is the proxy's compacted history, not the client's.
 */

import type { TokenCounter } from 'agent-compact';
import {
  countMessageTokens,
  countSystemTokens,
  countToolTokens,
  createHeuristicCounter,
  createMemoizedCounter,
} from 'agent-compact/counters';
import { readRequestConversation } from 'agent-compact/internal';
import type { WireFormat } from 'agent-compact/wire';

/**
 * Texts whose counts the shared counter keeps, short ones included: the figures count every text
 * the compactors count, and a text is tokenized once for both.
 */
const SHARED_COUNT_ENTRIES = 20_000;

/** Counts request bodies; `undefined` for a body whose conversation cannot be read. */
export type RequestTokens = (api: WireFormat, body: Record<string, unknown>) => number | undefined;

/**
 * The share of `--max-memory` the shared counter's cache of counted texts may hold. The cache keeps
 * each text it counted, a copy the sessions' budget entries do not see (every request is parsed
 * anew), so it is bounded in bytes, and the budget for the rest is smaller by as much.
 */
export const COUNT_CACHE_MEMORY_SHARE = 1 / 8;
/** A character of a JavaScript string takes up to two bytes. */
const BYTES_PER_CHAR = 2;

/** What the shared counter's cache may hold under a `--max-memory` of `maxMemoryBytes`. */
export function countCacheBudget(maxMemoryBytes: number): { bytes: number; chars: number } {
  const chars = Math.floor((maxMemoryBytes * COUNT_CACHE_MEMORY_SHARE) / BYTES_PER_CHAR);
  return { bytes: chars * BYTES_PER_CHAR, chars };
}

/**
 * `counter` (the core's heuristic by default) with the counts of up to `maxChars` characters of
 * texts kept, to hand to the compactors and to {@link createRequestTokens} alike.
 */
export function createSharedCounter(
  counter: TokenCounter = createHeuristicCounter(),
  maxChars = Number.POSITIVE_INFINITY,
): TokenCounter {
  return createMemoizedCounter(counter, { minLength: 0, maxEntries: SHARED_COUNT_ENTRIES, maxChars });
}

/**
 * A {@link RequestTokens} over `counter`. A message's count is kept by its object: the proxy hands a
 * session's unchanged messages back as the same objects (`request-reuse.ts`), so a request costs
 * what is new in it.
 */
export function createRequestTokens(counter: TokenCounter = createSharedCounter()): RequestTokens {
  const messageTokens = new WeakMap<object, number>();
  const tokensOf = (message: Parameters<typeof countMessageTokens>[0]) => {
    let tokens = messageTokens.get(message);
    if (tokens === undefined) {
      tokens = countMessageTokens(message, counter);
      messageTokens.set(message, tokens);
    }
    return tokens;
  };
  return (api, body) => {
    try {
      const { system, messages, tools } = readRequestConversation(body, api);
      let tokens = countSystemTokens(system, counter) + countToolTokens(tools, counter);
      for (const message of messages) tokens += tokensOf(message);
      return tokens;
    } catch {
      // A body the reader refuses goes upstream as it came; it is left uncounted.
      return undefined;
    }
  };
}
