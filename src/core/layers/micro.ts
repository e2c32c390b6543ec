import { placeholderTokens } from '../_internal/placeholder.js';
import type { Message } from '../conversation/types.js';
import type { HistoryIndex } from './history-index.js';
import { type LayerPlan, maskToolResults, type RewriteContext } from './mask.js';

/** Resolved options of the micro layer. */
export interface MicroSettings {
  /** Tool results in the last `keepTurns` assistant turns stay whole. */
  keepTurns: number;
  /** Batch the masking so the prompt prefix (and the provider's cache) survives between batches. */
  cacheAware: boolean;
  /** With `cacheAware`, the least a batch must free. */
  clearAtLeast: number;
}

/** What micro would change, and how many of the index's pending results it masks. */
export interface MicroPlan extends LayerPlan {
  /** Pending results of the index the plan masks (the oldest ones). */
  consumed: number;
}

/**
 * Layer 1: masks whole tool results older than the last `keepTurns` assistant turns, using the
 * index the pipeline brought up to date with `messages`. With `cacheAware`, nothing changes until
 * the batch frees `clearAtLeast` tokens. Returns undefined when there is nothing to do.
 */
export function planMicro(
  messages: readonly Message[],
  index: HistoryIndex,
  settings: MicroSettings,
  context: RewriteContext,
): MicroPlan | undefined {
  const pending = index.pendingBefore(index.keepBoundary(settings.keepTurns));
  if (pending.length === 0) return undefined;
  const freedTokens = pending.reduce((sum, entry) => sum + entry.tokens - placeholderTokens, 0);
  if (settings.cacheAware && freedTokens < settings.clearAtLeast) return undefined;
  const masked = maskToolResults(messages, pending, context);
  return { ...masked, freedTokens, consumed: pending.length };
}
