import { describe, expect, it } from 'vitest';
import {
  CACHE_READ_MULTIPLIER,
  CACHE_WRITE_MULTIPLIER,
  MID_PAYBACK_TURNS,
  rewriteCost,
  rewritePays,
} from './rewrite-cost.js';

describe('rewriteCost', () => {
  it('is the tail written again less the tail read', () => {
    // 1.25 × 6,000 written − 0.1 × 10,000 no longer read.
    expect(rewriteCost({ rewrittenTokens: 10_000, freedTokens: 4_000 })).toBeCloseTo(6_500);
  });

  it('is negative when nearly all the tail goes: cheaper at once', () => {
    expect(rewriteCost({ rewrittenTokens: 10_000, freedTokens: 9_500 })).toBeLessThan(0);
  });
});

describe('rewritePays', () => {
  // Break-even: read × freed × turns = write × (rewritten − freed) − read × rewritten, so
  // freed = (write − read) × rewritten ÷ (read × turns + write).
  const rewrittenTokens = 10_000;
  const breakEven =
    ((CACHE_WRITE_MULTIPLIER - CACHE_READ_MULTIPLIER) * rewrittenTokens) /
    (CACHE_READ_MULTIPLIER * MID_PAYBACK_TURNS + CACHE_WRITE_MULTIPLIER);

  it('pays from the break-even on, not a token before', () => {
    expect(rewritePays({ rewrittenTokens, freedTokens: Math.ceil(breakEven) })).toBe(true);
    expect(rewritePays({ rewrittenTokens, freedTokens: Math.floor(breakEven) })).toBe(false);
  });

  it('needs less freed the more requests it has to pay back in', () => {
    const rewrite = { rewrittenTokens, freedTokens: 3_000 };
    expect(rewritePays(rewrite, 12)).toBe(false);
    expect(rewritePays(rewrite, 40)).toBe(true);
    expect(rewritePays(rewrite, MID_PAYBACK_TURNS)).toBe(false);
  });

  it('never pays for a rewrite that frees nothing', () => {
    expect(rewritePays({ rewrittenTokens: 0, freedTokens: 0 })).toBe(false);
  });
});
