/**
 * The proxy's figures: the tokens of a whole request body (system, tools, messages), counted the
 * same way for what the client sent and for what went upstream. The compactor's own counts are of
 * its input, which after a compaction is the proxy's compacted history, not the client's.
 */
import { readRequestConversation } from '../core/request/request-conversation.js';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.js';
import { createMemoizedCounter } from '../core/tokens/memoized-counter.js';
import { countMessageTokens, countSystemTokens } from '../core/tokens/message-tokens.js';
import type { TokenCounter } from '../core/tokens/token-counter.js';
import { countToolTokens } from '../core/tokens/tool-tokens.js';
import type { WireFormat } from '../core/wire/wire-format.js';

/** Long texts whose counts are kept: a session's history is counted again on every request. */
const COUNT_CACHE_ENTRIES = 20_000;

/** Counts request bodies; `undefined` for a body whose conversation cannot be read. */
export type RequestTokens = (api: WireFormat, body: Record<string, unknown>) => number | undefined;

/** A {@link RequestTokens} over `counter` (the proxy's, or the core's heuristic). */
export function createRequestTokens(counter: TokenCounter = createHeuristicCounter()): RequestTokens {
  const memoized = createMemoizedCounter(counter, { maxEntries: COUNT_CACHE_ENTRIES });
  return (api, body) => {
    try {
      const { system, messages, tools } = readRequestConversation(body, api);
      let tokens = countSystemTokens(system, memoized) + countToolTokens(tools, memoized);
      for (const message of messages) tokens += countMessageTokens(message, memoized);
      return tokens;
    } catch {
      // A body the reader refuses goes upstream as it came; it is left uncounted.
      return undefined;
    }
  };
}
