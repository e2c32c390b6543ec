import type { SummaryUsage } from './summary/summary-model.js';

/** Which layer ran. `none` when the conversation was left as it was. */
export type CompactionLayer = 'none' | 'micro' | 'mid' | 'hard';

/** Everything a compactor reports through `onEvent`. */
export type CompactionEvent =
  | { type: 'compaction-start'; layer: Exclude<CompactionLayer, 'none'>; tokensBefore: number }
  | {
      type: 'compaction-end';
      layer: Exclude<CompactionLayer, 'none'>;
      tokensBefore: number;
      tokensAfter: number;
      /** How many items were archived. */
      archived: number;
      durationMs: number;
    }
  | { type: 'summary-error'; attempt: number; error: unknown }
  | { type: 'summary-usage'; usage: SummaryUsage; modelId: string }
  | { type: 'fallback-used'; reason: string }
  /**
   * The circuit breaker stopped a hard compaction: the one on the previous call did not bring the
   * request under the mid threshold, so another summary would not help. `CONTEXT_OVERFLOW` follows.
   */
  | {
      type: 'circuit-breaker-open';
      /** The request's tokens now. */
      tokensBefore: number;
      /** The previous hard compaction's output, counted again now (provider-anchored when reported). */
      previousTokensAfter: number;
      /** The mid threshold it had to get under. */
      mid: number;
    };

/** Receives compaction events. Must not throw; errors it throws are ignored. */
export type CompactionEventHandler = (event: CompactionEvent) => void;
