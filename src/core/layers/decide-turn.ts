import type { MaybeCompactOptions } from '../compactor-options.js';
import { type ExpiredSummary, type Rewrite, rewritePays, summaryPaysOnExpiredCache } from './rewrite-cost.js';

/** What the breaker remembers between calls (kept in the session's saved state). */
export interface BreakerMemory {
  /** Whether the last call ran a foreground hard compaction. */
  hardOnLastCall: boolean;
  /**
   * What the provider counts beyond the messages, system prompt and tools the compactor sees
   * (hidden tool definitions, formatting), learned from usage reports and kept across compactions.
   */
  overheadTokens: number;
  /**
   * The request the last foreground hard compaction left, counted then (absent before the first,
   * and in states written before it was kept): the breaker holds the next hard until the request
   * has grown by a band between the thresholds since.
   */
  hardTokensAfter?: number;
}

/** Where a background summary stands at the start of a call (see `hard.background`). */
export type BackgroundJobState = 'none' | 'running' | 'ready' | 'failed';

/** Everything {@link decideTurn} needs, as plain numbers and flags. */
export interface TurnFacts {
  /** The request's tokens (provider-anchored when usage was reported). */
  tokens: number;
  limits: { mid: number; hard: number };
  force: MaybeCompactOptions['force'];
  /**
   * Micro's settings: batching for the prompt cache, the smallest batch worth a cache write, and
   * the request size under which it masks nothing.
   */
  micro: { cacheAware: boolean; clearAtLeast: number; startAt: number };
  /** Whether the prompt cache expired since the last call (no prefix to keep: no batching). */
  cacheExpired: boolean;
  /** The history index's cheap estimate of what a mid plan would free. */
  midEstimate: number;
  /** The breaker's reading of this call. */
  breaker: {
    /** The previous hard compaction's output, counted now, when the last call ran hard. */
    previousTokensAfter: number | undefined;
    /**
     * The smallest request a perfect (empty) summary could leave: the learned overhead, the
     * system prompt, the tools and the latest request.
     */
    floorTokens: number;
    /** What a summary could free: the messages less the latest request, counted as new content is. */
    historyTokens: number;
    /** What the last foreground hard compaction left (any earlier call), when one ran. */
    lastHardTokensAfter: number | undefined;
    /** Whether the request fits the window less the reserved output (true when no window is set). */
    fitsWindow: boolean;
  };
  /**
   * Between the thresholds with the prompt cache expired: what a summary would leave and cost
   * (undefined elsewhere: the row that weighs it does not apply).
   */
  expiredSummary: Omit<ExpiredSummary, 'tokens'> | undefined;
  /** Background summaries, when `hard.background` is on. */
  background: { threshold: number; limit: number; job: BackgroundJobState } | undefined;
}

/** Why the breaker keeps hard from running, with the sizes (the `circuit-breaker-open` event). */
export type BreakerOpen =
  /** The last call's hard compaction left the request over mid: another would not help. */
  | { reason: 'previous-hard'; previousTokensAfter: number }
  /** Even a perfect summary would leave the request over mid (the fixed part is that large). */
  | { reason: 'fixed-overhead'; floorTokens: number };

/** What a call does: one step, run by the pipeline. */
export type TurnStep =
  /** Micro only (its plan kept under {@link microRule}). */
  | { kind: 'micro'; cacheAware: boolean }
  /** Mid when {@link keepRewrite} keeps its plan under `rule`, otherwise micro. */
  | { kind: 'mid-else-micro'; rule: RewriteRule; cacheAware: boolean }
  /**
   * Over hard: mid when it gets the request under `under`; otherwise hard, unless `breaker` is
   * set: then mid when {@link keepRewrite} keeps it under `rule`, else micro, and the request goes
   * out as it is.
   */
  | {
      kind: 'mid-else-hard';
      under: number;
      breaker: BreakerOpen | undefined;
      rule: RewriteRule;
      cacheAware: boolean;
    }
  /** Forced hard. */
  | { kind: 'hard' }
  /** Nothing changes this call; `start` starts a background summary of the history. */
  | { kind: 'hold'; start: boolean }
  /** The background summary is ready: swap it in. */
  | { kind: 'swap-in' }
  /** Over the background limit with the summary on its way: mid when it gets under `under`, else wait for it. */
  | { kind: 'await'; under: number };

/** When a plan is worth sending (checked by {@link keepRewrite} once the plan is made). */
export interface RewriteRule {
  /** The fewest tokens the plan must free. */
  minFreed: number;
  /** Whether it must also pay for the prompt cache it rewrites (`rewrite-cost.ts`). */
  payback: boolean;
}

/** A plan as the pipeline measured it. */
export interface RewriteFacts extends Rewrite {
  /** Whether the plan changed anything. */
  changed: boolean;
}

/**
 * The rule of a micro plan: a cache-aware batch (one worth a cache write, micro's `clearAtLeast`)
 * must also pay for the rewrite of the tail after it.
 */
export function microRule(cacheAware: boolean): RewriteRule {
  return { minFreed: 0, payback: cacheAware };
}

/**
 * The second half of a layer's choice, once its plan is made: keep it when it changed something,
 * freed at least `minFreed` and, with `payback`, saves more cache reads over the next requests
 * than the cache writes it costs now. A plan that frees a little of a long tail costs more than
 * it saves: the request would fire mid again and again, rewriting the cache each time.
 */
export function keepRewrite(rule: RewriteRule, plan: RewriteFacts): boolean {
  if (!plan.changed || plan.freedTokens < rule.minFreed) return false;
  return !rule.payback || rewritePays(plan);
}

/**
 * The whole choice of a call, as a pure function of its facts. `force` wins; then a background
 * summary on its way or ready; then the thresholds: over hard, mid when enough, else hard (unless
 * the breaker is open); between the thresholds, mid when the index estimates it frees a batch
 * worth a cache write; micro otherwise, once the request reaches micro's `startAt`.
 */
export function decideTurn(facts: TurnFacts): TurnStep {
  const { tokens, limits, force, micro } = facts;
  const cacheAware = micro.cacheAware && !facts.cacheExpired;
  if (force === 'hard') return { kind: 'hard' };
  if (force === 'mid') return { kind: 'mid-else-micro', rule: { minFreed: 0, payback: false }, cacheAware };
  const background = backgroundStep(facts);
  if (background) return background;
  // With the prompt cache in play, mid must pay for the cache it rewrites (with the breaker open
  // too); mid instead of hard needs no payback: a summary would rewrite as much.
  const payback = cacheAware;
  if (tokens > limits.hard) {
    const breaker = breakerOpen(facts);
    const rule = { minFreed: 0, payback };
    return { kind: 'mid-else-hard', under: limits.mid, breaker, rule, cacheAware };
  }
  const expired = expiredSummaryStep(facts, payback);
  if (expired) return expired;
  // A whole mid plan walks the history: make one only when the index estimates a worthy batch.
  const minFreed = cacheAware ? micro.clearAtLeast : 0;
  if (tokens > limits.mid && facts.midEstimate >= minFreed) {
    return { kind: 'mid-else-micro', rule: { minFreed, payback }, cacheAware };
  }
  // Far under mid the agent keeps every result whole: what masking saves there is small (on an
  // expired cache too), and a run that ends soon never earns back the cache a batch rewrites.
  if (tokens < micro.startAt) return { kind: 'hold', start: false };
  return { kind: 'micro', cacheAware };
}

/**
 * Between the thresholds with the prompt cache expired, the request is written whole whatever
 * happens: mid when it gets under mid, else a summary when it pays for its call
 * ({@link summaryPaysOnExpiredCache}) and the breaker lets it. A long session that mid keeps just
 * under hard otherwise writes all of it again after every pause (a Codex rollout at a 200k window:
 * about 100k written on each of 20 requests after the cache lifetime, where a summary left 15k).
 */
function expiredSummaryStep(facts: TurnFacts, payback: boolean): TurnStep | undefined {
  const { tokens, limits, cacheExpired, expiredSummary } = facts;
  if (!cacheExpired || !expiredSummary || tokens <= limits.mid || tokens > limits.hard) return undefined;
  if (!summaryPaysOnExpiredCache({ tokens, ...expiredSummary }) || breakerOpen(facts)) return undefined;
  return {
    kind: 'mid-else-hard',
    under: limits.mid,
    breaker: undefined,
    rule: { minFreed: 0, payback },
    cacheAware: false,
  };
}

/**
 * The background rows: hold while the summary is on its way (or wait for it over the limit), swap
 * it in when ready, start one when mid could not do the job. Undefined: the usual layers decide.
 */
function backgroundStep({ background, tokens, limits, midEstimate }: TurnFacts): TurnStep | undefined {
  if (!background) return undefined;
  switch (background.job) {
    case 'running':
      return tokens > background.limit
        ? { kind: 'await', under: background.limit }
        : { kind: 'hold', start: false };
    case 'ready':
      return { kind: 'swap-in' };
    case 'failed':
      // A failed or useless summary: the usual layers decide (hard in the foreground when needed).
      return undefined;
    case 'none': {
      // Under the hard threshold, mid must get back under the background threshold; over it, under mid.
      const enough = tokens > limits.hard ? limits.mid : background.threshold;
      return tokens <= background.limit && tokens - midEstimate > enough
        ? { kind: 'hold', start: true }
        : undefined;
    }
    default: {
      const exhaustive: never = background.job;
      return exhaustive;
    }
  }
}

/**
 * Why hard must not run on this call, or undefined when it may. With a floor over mid no summary
 * gets under mid, but one still pays for its rewrite once the history alone (the messages less
 * the latest request) is over hard: it frees about that much, the next call is held by the
 * previous-hard rule, and the history takes as long to grow back. A hard that left the request
 * over mid is not repeated until the request has grown by the band between the thresholds since
 * (while it fits the window): a summary again after a few turns would free only those turns, and
 * its call and the cache it rewrites cost more than they save (a summary every 2–3 turns on
 * Claude Code sessions at 8k/16k, whose hard output sat 2k under hard).
 */
function breakerOpen({ breaker, limits, tokens }: TurnFacts): BreakerOpen | undefined {
  const { floorTokens, historyTokens } = breaker;
  if (floorTokens > limits.mid && historyTokens <= limits.hard)
    return { reason: 'fixed-overhead', floorTokens };
  const { previousTokensAfter, lastHardTokensAfter } = breaker;
  if (previousTokensAfter !== undefined && previousTokensAfter > limits.mid) {
    return { reason: 'previous-hard', previousTokensAfter };
  }
  const grown = lastHardTokensAfter === undefined ? undefined : tokens - lastHardTokensAfter;
  if (
    breaker.fitsWindow &&
    grown !== undefined &&
    lastHardTokensAfter! > limits.mid &&
    grown < limits.hard - limits.mid
  )
    return { reason: 'previous-hard', previousTokensAfter: lastHardTokensAfter! };
  return undefined;
}

/** A layer the pipeline can run as an attempt. */
export type AttemptLayer = 'micro' | 'mid' | 'hard';

/** What an attempt's measured plan must show to be sent. */
export type Accept =
  /** It changed something and the request is then at most `under` tokens (so mid does not fire again). */
  | { kind: 'fits-under'; under: number }
  /** {@link keepRewrite} keeps it under `rule`. */
  | { kind: 'keep'; rule: RewriteRule }
  /** Any plan the layer returns (hard returns none when it would free nothing). */
  | { kind: 'any' };

/**
 * An attempt's plan as the pipeline measured it. The counts are functions: each walks the
 * request, and only the predicate that reads one pays for it.
 */
export interface MeasuredAttempt {
  changed: boolean;
  freedTokens: number;
  /** The tokens of the request's tail from the first message the plan rewrites. */
  rewrittenTokens: () => number;
  /** The request's tokens once the plan is applied, on the provider's scale. */
  tokensAfter: () => number;
}

/** One attempt: run its layer; send the plan when `accept` holds, else go on to the next attempt. */
export type Attempt = (
  | { layer: 'micro' /** Micro batches for the prompt cache. */; cacheAware: boolean }
  | { layer: 'mid' | 'hard' }
) & {
  accept: Accept;
  /** Set when the breaker keeps hard from running: reported before this attempt runs. */
  breaker?: BreakerOpen;
};

/**
 * A call's whole choice as data: hold, swap in, or attempts tried in order, each layer planned
 * at most once per call. When none is accepted: `as-is` sends the request unchanged, `wait`
 * waits for the background summary and decides again.
 */
export type TurnPlan =
  | { kind: 'attempts'; attempts: Attempt[]; otherwise: 'as-is' | 'wait' }
  | { kind: 'hold'; start: boolean }
  | { kind: 'swap-in' };

/** The plan of {@link decideTurn}'s step: its fallbacks spelled out as attempts. */
export function planTurn(facts: TurnFacts): TurnPlan {
  return planOfStep(decideTurn(facts));
}

/** The attempts a step stands for, in the order the pipeline tries them. */
export function planOfStep(step: TurnStep): TurnPlan {
  const attempts = (list: Attempt[], otherwise: 'as-is' | 'wait' = 'as-is'): TurnPlan => ({
    kind: 'attempts',
    attempts: list,
    otherwise,
  });
  const micro = (cacheAware: boolean): Attempt => ({
    layer: 'micro',
    cacheAware,
    accept: { kind: 'keep', rule: microRule(cacheAware) },
  });
  switch (step.kind) {
    case 'micro':
      return attempts([micro(step.cacheAware)]);
    case 'mid-else-micro':
      return attempts([{ layer: 'mid', accept: { kind: 'keep', rule: step.rule } }, micro(step.cacheAware)]);
    case 'mid-else-hard': {
      // Condensing is enough when it gets back under mid; with the breaker open, the same mid
      // plan is kept under the looser rule, else micro, and the request goes out as it is.
      const fits: Attempt = { layer: 'mid', accept: { kind: 'fits-under', under: step.under } };
      if (!step.breaker) return attempts([fits, { layer: 'hard', accept: { kind: 'any' } }]);
      const kept: Attempt = {
        layer: 'mid',
        accept: { kind: 'keep', rule: step.rule },
        breaker: step.breaker,
      };
      return attempts([fits, kept, micro(step.cacheAware)]);
    }
    case 'hard':
      // Forced (the model called `compact`): the breaker guards only the automatic path.
      return attempts([{ layer: 'hard', accept: { kind: 'any' } }]);
    case 'hold':
      return { kind: 'hold', start: step.start };
    case 'swap-in':
      return { kind: 'swap-in' };
    case 'await':
      // Mid keeps the message count, so the summary on its way still fits after it.
      return attempts([{ layer: 'mid', accept: { kind: 'fits-under', under: step.under } }], 'wait');
    default: {
      const exhaustive: never = step;
      return exhaustive;
    }
  }
}

/** Whether an attempt's measured plan is sent. */
export function accepts(accept: Accept, measured: MeasuredAttempt): boolean {
  switch (accept.kind) {
    case 'fits-under':
      return measured.changed && measured.tokensAfter() <= accept.under;
    case 'keep': {
      const { changed, freedTokens } = measured;
      // A getter: the tail is counted only when the rule asks payback of a plan big enough.
      return keepRewrite(accept.rule, {
        changed,
        freedTokens,
        get rewrittenTokens() {
          return measured.rewrittenTokens();
        },
      });
    }
    case 'any':
      return true;
    default: {
      const exhaustive: never = accept;
      return exhaustive;
    }
  }
}
