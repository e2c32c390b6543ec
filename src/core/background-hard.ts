import type { CompactorSettings } from './compactor-settings.js';
import type { Message } from './conversation/types.js';
import type { LayerPlan } from './layers/mask.js';
import type { BackgroundJob, SessionRuntime } from './session-runtime.js';

/** What a call does about background summaries (see `hard.background`). */
export type BackgroundDecision =
  /** No background work: the layers run as usual. */
  | { kind: 'none' }
  /** A summary is on its way (or just started): nothing changes this call. */
  | { kind: 'hold' }
  /** The summary is ready: this plan swaps it in. */
  | { kind: 'swap'; plan: LayerPlan }
  /**
   * The request is over the hard threshold and the summary is still on its way: mid may bring it
   * back under (it keeps the message count, so the summary still fits); otherwise wait for `done`
   * and decide again.
   */
  | { kind: 'over-hard'; done: Promise<void> };

/**
 * Background hard compaction: starts a summary of the history when the request passes the
 * background threshold, and swaps it in on the first call after it is ready. The summary covers the
 * snapshot it started from; the messages added since follow it verbatim, so the result is the
 * hard plan of the snapshot plus those messages, and rebuilds exactly like a foreground one. A
 * request over the hard threshold while the summary is on its way is condensed by mid when that is
 * enough, and otherwise waits for it; a history that no longer continues the snapshot drops it.
 */
export async function decideBackground(
  input: readonly Message[],
  tokensBefore: number,
  runtime: SessionRuntime,
  settings: CompactorSettings,
  startSummary: () => Promise<LayerPlan | undefined>,
): Promise<BackgroundDecision> {
  const { background } = settings;
  if (!background) return { kind: 'none' };
  let job = runtime.background;
  if (job && !continuesSnapshot(input, job)) {
    runtime.background = undefined;
    job = undefined;
  }
  if (job) {
    if (!job.outcome) {
      return tokensBefore > background.limit ? { kind: 'over-hard', done: job.done } : { kind: 'hold' };
    }
    runtime.background = undefined;
    // A failed or useless summary: the usual layers decide (hard in the foreground when needed).
    if ('error' in job.outcome || !job.outcome.plan) return { kind: 'none' };
    const { plan } = job.outcome;
    return { kind: 'swap', plan: { ...plan, messages: [...plan.messages, ...input.slice(job.length)] } };
  }
  // Start only when mid could not do the job: under the hard threshold, bring the request back under
  // the background threshold; over it, under mid (as the foreground choice between mid and hard).
  const afterMid = tokensBefore - runtime.index.estimateMidFreed(settings.mid.keepToolResults);
  const enough = tokensBefore > settings.limits.hard ? settings.limits.mid : background.threshold;
  if (tokensBefore <= background.limit && afterMid > enough) {
    runtime.background = startJob(input, startSummary);
    return { kind: 'hold' };
  }
  return { kind: 'none' };
}

function startJob(
  input: readonly Message[],
  startSummary: () => Promise<LayerPlan | undefined>,
): BackgroundJob {
  const job: BackgroundJob = { length: input.length, first: input[0], done: Promise.resolve() };
  job.done = startSummary().then(
    (plan) => {
      job.outcome = { plan };
    },
    (error: unknown) => {
      job.outcome = { error };
    },
  );
  return job;
}

/**
 * True when the history still continues the job's snapshot: at least as long, same first message.
 * Micro and mid rewrite messages in place and keep their number, so the summary still replaces
 * exactly the snapshot's messages; a hard compaction or a history from elsewhere drops the job.
 * "Same" is by content: a caller that parses each request anew (a proxy, `compactRequest` on
 * JSON bodies) hands in equal messages that are new objects; a moved cache breakpoint is no change.
 */
function continuesSnapshot(input: readonly Message[], job: BackgroundJob): boolean {
  if (input.length < job.length) return false;
  const [first] = input;
  return first === job.first || contentKey(first) === contentKey(job.first);
}

function contentKey(message: Message | undefined): string {
  return JSON.stringify(message, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
}
