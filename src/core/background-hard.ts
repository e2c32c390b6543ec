import type { BackgroundJobState } from './layers/decide-turn.js';
import type { LayerPlan } from './layers/mask.js';
import type { Message } from './model/messages.js';
import type { BackgroundJob } from './session-runtime.js';

/**
 * Background hard compaction (see `hard.background`): a summary of the history starts when the
 * request passes the background threshold and is swapped in on the first call after it is ready
 * (the choice is `decideTurn`'s). The summary covers the snapshot it started from; the messages
 * added since follow it verbatim, so the result is the hard plan of the snapshot plus those
 * messages, and rebuilds exactly like a foreground one. A history that no longer continues the
 * snapshot drops it.
 */
export function jobState(job: BackgroundJob | undefined): BackgroundJobState {
  if (!job) return 'none';
  if (!job.outcome) return 'running';
  // A failed or useless summary: the usual layers decide (hard in the foreground when needed).
  return 'plan' in job.outcome && job.outcome.plan ? 'ready' : 'failed';
}

/** Starts summarizing `input` in the background; the job records its outcome when it settles. */
export function startJob(
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
export function continuesSnapshot(input: readonly Message[], job: BackgroundJob): boolean {
  if (input.length < job.length) return false;
  const [first] = input;
  return first === job.first || contentKey(first) === contentKey(job.first);
}

function contentKey(message: Message | undefined): string {
  return JSON.stringify(message, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
}
