import { placeholderTokens } from '../_internal/placeholder.js';
import type { Message } from '../model/messages.js';
import type { HistoryIndex } from './history-index.js';
import { type LayerPlan, type MaskTarget, maskToolResults, type RewriteContext } from './mask.js';

/** Resolved options of the micro layer. */
export interface MicroSettings {
  /** Tool results in the last `keepTurns` assistant turns stay whole. */
  keepTurns: number;
  /** Batch the masking so the prompt prefix (and the provider's cache) survives between batches. */
  cacheAware: boolean;
  /** With `cacheAware`, the least a batch must free. */
  clearAtLeast: number;
  /** Replace results a later copy made stale (at any age) with a pointer to the newer copy. */
  supersede: boolean;
}

/** What micro would change, and how many of the index's pending results it masks. */
export interface MicroPlan extends LayerPlan {
  /** Pending results of the index the plan masks (the oldest ones). */
  consumed: number;
  /** Tool results the plan replaced because a later copy made them stale. */
  superseded: string[];
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
  // Supersede before masking by age: a stale copy points at the newer one, whatever its age.
  const stale = settings.supersede ? index.staleResults() : [];
  const staleIds = new Set(stale.map((entry) => entry.toolUseId));
  const aged = pending.filter(
    (entry) => !staleIds.has(entry.toolUseId) && !index.isSuperseded(entry.toolUseId),
  );
  const targets: MaskTarget[] = [...stale, ...aged];
  if (targets.length === 0) return undefined;
  const freedTokens = targets.reduce((sum, entry) => sum + entry.tokens - placeholderTokens, 0);
  if (settings.cacheAware && freedTokens < settings.clearAtLeast) return undefined;
  const masked = maskToolResults(messages, targets, context);
  return { ...masked, freedTokens, consumed: pending.length, superseded: [...staleIds] };
}
