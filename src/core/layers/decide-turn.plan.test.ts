import { describe, expect, it } from 'vitest';
import {
  type Attempt,
  accepts,
  type MeasuredAttempt,
  planOfStep,
  planTurn,
  type TurnPlan,
} from './decide-turn.js';
import { baseFacts } from './decide-turn.test-utils.js';

const base = baseFacts;

/** A measured plan: what it freed, the tail it rewrites, the request it leaves. */
const measured = (
  freedTokens: number,
  tokensAfter: number,
  rewrittenTokens = freedTokens,
): MeasuredAttempt => ({
  changed: freedTokens > 0,
  freedTokens,
  rewrittenTokens: () => rewrittenTokens,
  tokensAfter: () => tokensAfter,
});

type Results = Partial<Record<Attempt['layer'], MeasuredAttempt>>;

/**
 * What the plan sends given each layer's measured plan (a layer absent had no plan): the first
 * accepted attempt's layer, else the plan's fallback. No layer runs: this reads the plan only.
 */
function verdict(plan: TurnPlan, results: Results): string {
  if (plan.kind !== 'attempts') return plan.kind;
  for (const attempt of plan.attempts) {
    const result = results[attempt.layer];
    if (result && accepts(attempt.accept, result)) return attempt.layer;
  }
  return plan.otherwise;
}

describe('planTurn', () => {
  const between = { ...base, tokens: 60_000, midEstimate: 20_000 };
  const overHard = { ...base, tokens: 90_000 };

  it('between the thresholds, mid that frees less than minFreed falls back to micro', () => {
    const plan = planTurn(between);
    const micro = measured(1_000, 59_000, 1_000);
    expect(verdict(plan, { mid: measured(19_999, 40_001, 19_999), micro })).toBe('micro');
    expect(verdict(plan, { mid: measured(20_000, 40_000, 20_000), micro })).toBe('mid');
  });

  it('between the thresholds, mid that frees enough but does not pay for its rewrite falls back', () => {
    // 20k freed of a 400k tail: the cache writes cost more than 20 requests save.
    expect(verdict(planTurn(between), { mid: measured(20_000, 40_000, 400_000) })).toBe('as-is');
  });

  it('over hard, mid that does not get under mid falls back to hard', () => {
    const plan = planTurn(overHard);
    const hard = measured(70_000, 20_000);
    expect(verdict(plan, { mid: measured(39_999, 50_001), hard })).toBe('hard');
    expect(verdict(plan, { mid: measured(40_000, 50_000), hard })).toBe('mid');
    // Hard returns no plan when it would free nothing: the request goes out as it is.
    expect(verdict(plan, { mid: measured(0, 90_000) })).toBe('as-is');
  });

  it('over hard with the breaker open, the same mid plan is kept under the looser rule, else micro', () => {
    const plan = planTurn({ ...overHard, breaker: { ...base.breaker, previousTokensAfter: 60_000 } });
    expect(plan.kind === 'attempts' && plan.attempts.map((attempt) => attempt.layer)).toEqual([
      'mid',
      'mid',
      'micro',
    ]);
    expect(plan.kind === 'attempts' && plan.attempts[1]?.breaker).toEqual({
      reason: 'previous-hard',
      previousTokensAfter: 60_000,
    });
    const hard = measured(70_000, 20_000);
    expect(verdict(plan, { mid: measured(10_000, 80_000, 10_000), hard })).toBe('mid');
    expect(verdict(plan, { mid: measured(0, 90_000), micro: measured(500, 89_500, 500), hard })).toBe(
      'micro',
    );
  });

  it('forced hard is a single attempt that takes any plan', () => {
    expect(planTurn({ ...base, force: 'hard' })).toEqual({
      kind: 'attempts',
      attempts: [{ layer: 'hard', accept: { kind: 'any' } }],
      otherwise: 'as-is',
    });
  });

  it('over the background limit with the summary on its way: mid under the limit, else wait', () => {
    const plan = planTurn({
      ...base,
      tokens: 78_000,
      background: { threshold: 60_000, limit: 75_000, job: 'running' },
    });
    expect(verdict(plan, { mid: measured(3_000, 75_000) })).toBe('mid');
    expect(verdict(plan, { mid: measured(2_999, 75_001) })).toBe('wait');
  });

  it('holding and swapping in run no layer', () => {
    expect(planOfStep({ kind: 'hold', start: true })).toEqual({ kind: 'hold', start: true });
    expect(planOfStep({ kind: 'swap-in' })).toEqual({ kind: 'swap-in' });
  });
});

describe('accepts', () => {
  it('reads a count only when its predicate needs it', () => {
    const unread = (): number => {
      throw new Error('counted');
    };
    const unchanged: MeasuredAttempt = {
      changed: false,
      freedTokens: 0,
      rewrittenTokens: unread,
      tokensAfter: unread,
    };
    expect(accepts({ kind: 'fits-under', under: 50_000 }, unchanged)).toBe(false);
    const free: MeasuredAttempt = {
      changed: true,
      freedTokens: 10,
      rewrittenTokens: unread,
      tokensAfter: unread,
    };
    expect(accepts({ kind: 'keep', rule: { minFreed: 0, payback: false } }, free)).toBe(true);
    expect(accepts({ kind: 'keep', rule: { minFreed: 20, payback: true } }, free)).toBe(false);
  });
});
