import { placeholderTokens } from '../_internal/placeholder.js';
import type { Message } from '../model/messages.js';
import { type HistoryIndex, resultPosition } from './history-index.js';
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
  /** File reads of the last `turns` turns stay whole, newest first, within `maxTokens` together. */
  keepReads: { turns: number; maxTokens: number };
}

/** What micro would change, and which tool results it replaces. */
export interface MicroPlan extends LayerPlan {
  /** Tool results the plan masks by age (their tool call ids). */
  masked: string[];
  /** Tool results the plan replaced because a later copy made them stale (their tool call ids). */
  superseded: string[];
  /**
   * Every result the plan replaced, by position (`resultPosition`): what the index marks, since a
   * client that reuses a tool call id has other results under it.
   */
  replaced: string[];
}

/**
 * Layer 1: masks whole tool results older than the last `keepTurns` assistant turns, using the
 * index the pipeline brought up to date with `messages`. With `cacheAware`, nothing changes until
 * the batch frees `clearAtLeast` tokens. Recent file reads stay whole within `keepReads`, while
 * the request with everything else masked stays within `room`: how far it is under the mid
 * threshold less a batch, so kept reads never bring mid on sooner. Returns undefined when there is
 * nothing to do.
 */
export function planMicro(
  messages: readonly Message[],
  index: HistoryIndex,
  settings: MicroSettings,
  context: RewriteContext,
  room = Number.POSITIVE_INFINITY,
): MicroPlan | undefined {
  const pending = index.pendingBefore(index.keepBoundary(settings.keepTurns));
  // Supersede before masking by age: a stale copy points at the newer one, whatever its age.
  const stale = settings.supersede ? index.staleResults() : [];
  const staleAt = new Set(stale.map(resultPosition));
  const old = pending.filter((entry) => !staleAt.has(resultPosition(entry)));
  const freedByAll = freed([...stale, ...old]);
  // Keeping reads only frees less: most calls end here, before looking for them.
  if (settings.cacheAware && freedByAll < settings.clearAtLeast) return undefined;
  const kept = recentReads(index, staleAt, settings, room + freedByAll);
  const aged = old.filter((entry) => !kept.has(resultPosition(entry)));
  const targets: MaskTarget[] = [...stale, ...aged];
  if (targets.length === 0) return undefined;
  const freedTokens = freed(targets);
  if (settings.cacheAware && freedTokens < settings.clearAtLeast) return undefined;
  const plan = maskToolResults(messages, targets, context);
  return {
    ...plan,
    freedTokens,
    masked: aged.map((entry) => entry.toolUseId),
    superseded: stale.map((entry) => entry.toolUseId),
    replaced: targets.map(resultPosition),
  };
}

function freed(targets: readonly MaskTarget[]): number {
  return targets.reduce((sum, entry) => sum + entry.tokens - placeholderTokens, 0);
}

/**
 * The whole file reads of the last `keepReads.turns` turns that micro would mask by age, newest
 * first while all those turns' reads fit in `keepReads.maxTokens` together (the reads of the last
 * `keepTurns`, whole anyway, count too) and the ones it keeps fit in `room`.
 */
function recentReads(
  index: HistoryIndex,
  staleAt: ReadonlySet<string>,
  { keepReads, keepTurns }: MicroSettings,
  room: number,
): Set<string> {
  const kept = new Set<string>();
  if (keepReads.turns <= 0) return kept;
  const masking = index.keepBoundary(keepTurns);
  let budget = keepReads.maxTokens;
  let left = room;
  for (const entry of index.pendingSince(index.keepBoundary(keepReads.turns))) {
    if (entry.fileRead !== true || entry.tokens > budget) continue;
    const position = resultPosition(entry);
    if (staleAt.has(position)) continue;
    budget -= entry.tokens;
    if (entry.messageIndex >= masking) continue;
    if (entry.tokens > left) continue;
    left -= entry.tokens;
    kept.add(position);
  }
  return kept;
}
