import type { ArchiveItem, ArchiveStore } from './archive/archive-store.js';
import type { MaybeCompactOptions } from './compactor-options.js';
import type { CompactionEvent, CompactionLayer } from './events.js';
import type { LayerPlan } from './layers/mask.js';
import { CompactError } from './model/errors.js';
import type { Message } from './model/messages.js';
import type { SessionRuntime } from './session-runtime.js';

/**
 * How long a call waits for the archive to store its originals before it fails as a store that
 * refused them does (`ARCHIVE_FAILED`, the context left unchanged). A file append or a Redis write
 * takes milliseconds; a store that has not answered in 30 s is down, and without a bound its call
 * never ended. Well under an agent's own request timeout (Claude Code's and Codex's are minutes).
 */
export const ARCHIVE_TIMEOUT_MS = 30_000;

/** What an `ARCHIVE_FAILED` message says of a store that did not answer in time. */
export const ARCHIVE_SILENT = `the archive did not answer within ${ARCHIVE_TIMEOUT_MS / 1000} s`;

/**
 * What an archive operation on a call's path (the first call's `list()`, each call's `put()`)
 * settles to, or `'timed-out'` when it has not settled within {@link ARCHIVE_TIMEOUT_MS}; rejects
 * as the operation does, a synchronous throw included. The timer is cleared either way.
 */
export async function archiveAnswer<T>(
  operation: () => T | PromiseLike<T>,
): Promise<{ value: T } | 'timed-out'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timed-out'>((settle) => {
    timer = setTimeout(() => settle('timed-out'), ARCHIVE_TIMEOUT_MS);
  });
  try {
    const answered = (async () => ({ value: await operation() }))();
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** One layer that changed the history. */
export interface AppliedStep {
  layer: Exclude<CompactionLayer, 'none'>;
  plan: LayerPlan;
  durationMs: number;
  /** The tool results micro masked or pointed at a newer copy (micro only: it rewrites in place). */
  replaced?: readonly string[];
}

/** What a call archives and reports once its state is saved. */
export interface StepsToReport {
  items: ArchiveItem[];
  steps: readonly AppliedStep[];
  sizes: readonly StepSizes[];
}

/**
 * After the runtime moved and its state was saved: archives the originals (a state save that found
 * the session moved leaves nothing archived under stale ids), then one start/end pair per step.
 */
export async function archiveAndReport(
  { items, steps, sizes }: StepsToReport,
  runtime: SessionRuntime,
  archive: ArchiveStore,
  emit: (event: CompactionEvent) => void,
): Promise<void> {
  await storeItems(archive, runtime, items);
  emitSteps(steps, sizes, emit);
}

async function storeItems(
  archive: ArchiveStore,
  runtime: SessionRuntime,
  items: ArchiveItem[],
): Promise<void> {
  if (items.length === 0) return;
  let outcome: { value: unknown } | 'timed-out';
  try {
    outcome = await archiveAnswer(() => archive.put(items));
  } catch (error) {
    throw new CompactError(`archiving ${items.length} item(s) failed; the context was left unchanged`, {
      code: 'ARCHIVE_FAILED',
      cause: error,
    });
  }
  if (outcome === 'timed-out') {
    throw new CompactError(
      `archiving ${items.length} item(s) failed: ${ARCHIVE_SILENT}; the context was left unchanged`,
      { code: 'ARCHIVE_FAILED' },
    );
  }
  runtime.ids.markStored(items);
}

/** Tokens before and after each step (see {@link measureSteps}). */
export interface StepSizes {
  before: number;
  after: number;
}

/**
 * The tokens before and after each step. Sizes are honest: the provider-anchored count
 * before, less what the step freed by the local count (measured, not estimated) scaled by the
 * calibrated ratio, so before and after are counted the same way.
 */
export function measureSteps(
  steps: readonly AppliedStep[],
  input: readonly Message[],
  { system, tools }: MaybeCompactOptions,
  tokensBefore: number,
  runtime: SessionRuntime,
): StepSizes[] {
  const ratio = runtime.tokens.calibration().overallRatio;
  const sizes: StepSizes[] = [];
  let tokens = tokensBefore;
  let local = steps.length === 0 ? 0 : runtime.tokens.countLocal(input, system, tools);
  for (const step of steps) {
    const before = tokens;
    const localAfter = runtime.tokens.countLocal(step.plan.messages, system, tools);
    tokens = Math.max(0, before - Math.round(ratio * (local - localAfter)));
    local = localAfter;
    sizes.push({ before, after: tokens });
  }
  return sizes;
}

/** One start/end pair per step; hard announced its start before its summary. */
function emitSteps(
  steps: readonly AppliedStep[],
  sizes: readonly StepSizes[],
  emit: (event: CompactionEvent) => void,
): void {
  for (const [index, { layer, plan, durationMs }] of steps.entries()) {
    const { before, after } = sizes[index]!;
    if (layer !== 'hard') emit({ type: 'compaction-start', layer, tokensBefore: before });
    emit({
      type: 'compaction-end',
      layer,
      tokensBefore: before,
      tokensAfter: after,
      archived: plan.items.length,
      durationMs,
    });
  }
}
