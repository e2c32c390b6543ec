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

/** What a store call on a call's path is, for the typed error that ends the call when it fails. */
export interface StoreCall {
  /** What the call was doing: `reading the archive of session s1`. */
  what: string;
  /** Which store: the archive or the state store. */
  store: 'archive' | 'state store';
  code: 'ARCHIVE_FAILED' | 'STATE_FAILED';
  /** Let a `CompactError` the store threw pass as it is (a `STATE_CONFLICT` re-runs the call). */
  keepTyped: boolean;
}

/**
 * What a store operation on a call's path (the first call's `list()` and `load()`, each call's
 * `put()` and `save()`) settles to. One that rejects, or has not settled within
 * {@link ARCHIVE_TIMEOUT_MS}, fails the call with `call.code`, the context left unchanged. The
 * timer is cleared either way; on a timeout the signal handed to `operation` aborts with that error,
 * so a store that takes it (`put`) can give up a write no context will refer to.
 */
export async function storeAnswer<T>(
  operation: (signal: AbortSignal) => T | PromiseLike<T>,
  call: StoreCall,
): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timed-out'>((settle) => {
    timer = setTimeout(() => settle('timed-out'), ARCHIVE_TIMEOUT_MS);
  });
  let answer: { value: T } | 'timed-out';
  try {
    const answered = (async () => ({ value: await operation(controller.signal) }))();
    answer = await Promise.race([answered, timedOut]);
  } catch (error) {
    if (call.keepTyped && CompactError.isInstance(error)) throw error;
    throw new CompactError(`${call.what} failed; the context was left unchanged`, {
      code: call.code,
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
  if (answer === 'timed-out') {
    const silent = `the ${call.store} did not answer within ${ARCHIVE_TIMEOUT_MS / 1000} s`;
    const error = new CompactError(`${call.what} failed: ${silent}; the context was left unchanged`, {
      code: call.code,
    });
    controller.abort(error);
    throw error;
  }
  return answer.value;
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
  await storeAnswer((signal) => archive.put(items, { signal }), {
    what: `archiving ${items.length} item(s)`,
    store: 'archive',
    code: 'ARCHIVE_FAILED',
    keepTyped: false,
  });
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
