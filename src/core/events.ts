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
   * request under the mid threshold (`previous-hard`), or even a perfect summary could not
   * (`fixed-overhead`: the overhead the provider counts plus the system prompt, tools and latest
   * request are over mid). The request goes out as it is, or `CONTEXT_OVERFLOW` when it does not fit.
   */
  | ({
      type: 'circuit-breaker-open';
      /** The request's tokens now. */
      tokensBefore: number;
      /** The mid threshold it had to get under. */
      mid: number;
    } & (
      | {
          reason: 'previous-hard';
          /** The previous hard compaction's output, counted again now (provider-anchored when reported). */
          previousTokensAfter: number;
        }
      | {
          reason: 'fixed-overhead';
          /** The smallest request a perfect (empty) summary could leave. */
          floorTokens: number;
        }
    ));

/** Receives compaction events. Must not throw; errors it throws are ignored. */
export type CompactionEventHandler = (event: CompactionEvent) => void;
