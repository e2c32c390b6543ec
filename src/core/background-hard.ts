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
  | { kind: 'swap'; plan: LayerPlan };

/**
 * Background hard compaction: starts a summary of the history when the request passes the
 * background threshold, and swaps it in on the first call after it is ready. The summary covers the
 * snapshot it started from; the messages added since follow it verbatim, so the result is the
 * hard plan of the snapshot plus those messages, and rebuilds exactly like a foreground one. A
 * request over the hard threshold waits for the summary on its way; a history that no longer starts
 * with the snapshot drops it.
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
    if (!job.outcome && tokensBefore > settings.limits.hard) await job.done;
    if (!job.outcome) return { kind: 'hold' };
    runtime.background = undefined;
    // A failed or useless summary: the usual layers decide (hard in the foreground when needed).
    if ('error' in job.outcome || !job.outcome.plan) return { kind: 'none' };
    const { plan } = job.outcome;
    return { kind: 'swap', plan: { ...plan, messages: [...plan.messages, ...input.slice(job.length)] } };
  }
  if (tokensBefore > background.threshold && tokensBefore <= settings.limits.hard) {
    runtime.background = startJob(input, startSummary);
    return { kind: 'hold' };
  }
  return { kind: 'none' };
}

function startJob(
  input: readonly Message[],
  startSummary: () => Promise<LayerPlan | undefined>,
): BackgroundJob {
  const job: BackgroundJob = { length: input.length, last: input[input.length - 1], done: Promise.resolve() };
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

/** True when the history still starts with the job's snapshot (same length or longer, same last message). */
function continuesSnapshot(input: readonly Message[], job: BackgroundJob): boolean {
  return input.length >= job.length && input[job.length - 1] === job.last;
}
