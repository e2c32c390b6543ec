/**
 * `agent-compact/counters`: the token counters and counting building blocks. The compactor counts
 * with the heuristic counter anchored to provider usage by default; these are for a counter of
 * your own, or for counting outside the compactor. A BPE counter is in `agent-compact/tokenizer`.
 */

export type { AnchoredCounterState } from '../core/archive/session-state-store.js';
export { promptTokensFromUsage } from '../core/model/messages.js';
export type { ToolDefinition } from '../core/model/request.js';
export {
  type AnchoredCalibration,
  type AnchoredCounter,
  type AnchoredCounterOptions,
  createAnchoredCounter,
} from '../core/tokens/anchored-counter.js';
export { createHeuristicCounter } from '../core/tokens/heuristic-counter.js';
export { createIncrementalCounter, type IncrementalCounter } from '../core/tokens/incremental-counter.js';
export { createMemoizedCounter, type MemoizedCounterOptions } from '../core/tokens/memoized-counter.js';
export { countMessageTokens, countSystemTokens } from '../core/tokens/message-tokens.js';
export type { TokenCounter } from '../core/tokens/token-counter.js';
export { countToolTokens } from '../core/tokens/tool-tokens.js';
