import { describe, expect, it } from 'vitest';
import {
  CACHE_READ_MULTIPLIER,
  CACHE_WRITE_MULTIPLIER,
  MID_PAYBACK_TURNS,
  rewriteCost,
  rewritePays,
  summaryPaysOnExpiredCache,
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

describe('summaryPaysOnExpiredCache', () => {
  it('pays when the writes and reads it saves cover the call that reads the request uncached', () => {
    // 100k written whole after a pause, a summary leaving 15k: 85k freed saves 1.25×85k now and
    // 0.1×85k on each of 20 requests (276,250) against the call: 100k read, 2k written at 5× (110k).
    expect(
      summaryPaysOnExpiredCache({ tokens: 100_000, keptTokens: 15_000, summaryOutputTokens: 2_000 }),
    ).toBe(true);
  });

  it('does not pay when the summary would leave most of a small request (8k/16k, a 7k summary)', () => {
    // 3k freed: 3,750 + 6,000 saved against 10k read and 10k written.
    expect(summaryPaysOnExpiredCache({ tokens: 10_000, keptTokens: 7_000, summaryOutputTokens: 2_000 })).toBe(
      false,
    );
  });

  it('pays from the break-even on: freed × (1.25 + 0.1 × turns) = tokens + 5 × output', () => {
    // 3.25 × freed = 40,000 + 10,000: freed 15,384.6, so kept 24,615 pays and 24,616 does not.
    const summary = { tokens: 40_000, summaryOutputTokens: 2_000 };
    expect(summaryPaysOnExpiredCache({ ...summary, keptTokens: 24_615 })).toBe(true);
    expect(summaryPaysOnExpiredCache({ ...summary, keptTokens: 24_616 })).toBe(false);
  });

  it('never pays for a summary that frees nothing', () => {
    expect(summaryPaysOnExpiredCache({ tokens: 10_000, keptTokens: 10_000, summaryOutputTokens: 0 })).toBe(
      false,
    );
  });
});
