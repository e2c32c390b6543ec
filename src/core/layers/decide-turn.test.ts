import { describe, expect, it } from 'vitest';
import {
  decideTurn,
  keepRewrite,
  microRule,
  type RewriteFacts,
  type TurnFacts,
  type TurnStep,
} from './decide-turn.js';
import { baseFacts } from './decide-turn.test-utils.js';

const base = baseFacts;
/** Over hard with the prompt cache in play: a mid plan must pay for its rewrite. */
const paying = { minFreed: 0, payback: true };
const background = (job: 'none' | 'running' | 'ready' | 'failed') => ({
  threshold: 60_000,
  limit: 75_000,
  job,
});

describe('decideTurn', () => {
  it.each<[string, Partial<TurnFacts>, TurnStep]>([
    ['under mid: micro', {}, { kind: 'micro', cacheAware: true }],
    [
      "under micro's startAt: nothing changes",
      { tokens: 24_999, micro: { ...base.micro, startAt: 25_000 } },
      { kind: 'hold', start: false },
    ],
    [
      "from micro's startAt: micro",
      { tokens: 25_000, micro: { ...base.micro, startAt: 25_000 } },
      { kind: 'micro', cacheAware: true },
    ],
    [
      "under micro's startAt with the cache expired: nothing changes either",
      { tokens: 24_999, cacheExpired: true, micro: { ...base.micro, startAt: 25_000 } },
      { kind: 'hold', start: false },
    ],
    [
      'under mid, cache expired: micro without batching',
      { cacheExpired: true },
      { kind: 'micro', cacheAware: false },
    ],
    [
      'between the thresholds, mid estimated under a batch: micro',
      { tokens: 60_000, midEstimate: 19_999 },
      { kind: 'micro', cacheAware: true },
    ],
    [
      'between the thresholds, mid estimated a batch: mid, else micro',
      { tokens: 60_000, midEstimate: 20_000 },
      { kind: 'mid-else-micro', rule: { minFreed: 20_000, payback: true }, cacheAware: true },
    ],
    [
      'between the thresholds, cache expired: mid whatever it frees',
      { tokens: 60_000, cacheExpired: true },
      { kind: 'mid-else-micro', rule: { minFreed: 0, payback: false }, cacheAware: false },
    ],
    [
      'between the thresholds, micro not cache-aware: mid whatever it frees',
      { tokens: 60_000, micro: { cacheAware: false, clearAtLeast: 20_000, startAt: 0 } },
      { kind: 'mid-else-micro', rule: { minFreed: 0, payback: false }, cacheAware: false },
    ],
    [
      'over hard: mid when it gets under mid, else hard',
      { tokens: 90_000 },
      { kind: 'mid-else-hard', under: 50_000, breaker: undefined, rule: paying, cacheAware: true },
    ],
    [
      'over hard after a hard that left the request over mid: the breaker holds hard',
      {
        tokens: 90_000,
        breaker: {
          lastHardTokensAfter: undefined,
          fitsWindow: true,
          previousTokensAfter: 55_000,
          floorTokens: 5_000,
          historyTokens: 85_000,
        },
      },
      {
        kind: 'mid-else-hard',
        under: 50_000,
        breaker: { reason: 'previous-hard', previousTokensAfter: 55_000 },
        rule: paying,
        cacheAware: true,
      },
    ],
    [
      'over hard after a hard that got under mid: hard may run',
      {
        tokens: 90_000,
        breaker: {
          lastHardTokensAfter: undefined,
          fitsWindow: true,
          previousTokensAfter: 45_000,
          floorTokens: 5_000,
          historyTokens: 85_000,
        },
      },
      { kind: 'mid-else-hard', under: 50_000, breaker: undefined, rule: paying, cacheAware: true },
    ],
    [
      'over hard with a floor over mid: even a perfect summary would not help',
      {
        tokens: 90_000,
        breaker: {
          lastHardTokensAfter: undefined,
          fitsWindow: true,
          previousTokensAfter: undefined,
          floorTokens: 51_000,
          historyTokens: 39_000,
        },
      },
      {
        kind: 'mid-else-hard',
        under: 50_000,
        breaker: { reason: 'fixed-overhead', floorTokens: 51_000 },
        rule: paying,
        cacheAware: true,
      },
    ],
    [
      'over hard with a floor over mid, the history alone over hard: a summary pays, hard may run',
      {
        tokens: 150_000,
        breaker: {
          lastHardTokensAfter: undefined,
          fitsWindow: true,
          previousTokensAfter: undefined,
          floorTokens: 60_000,
          historyTokens: 90_000,
        },
      },
      { kind: 'mid-else-hard', under: 50_000, breaker: undefined, rule: paying, cacheAware: true },
    ],
    [
      'over hard with a floor over mid, right after a hard: the breaker holds hard',
      {
        tokens: 150_000,
        breaker: {
          lastHardTokensAfter: undefined,
          fitsWindow: true,
          previousTokensAfter: 64_000,
          floorTokens: 60_000,
          historyTokens: 90_000,
        },
      },
      {
        kind: 'mid-else-hard',
        under: 50_000,
        breaker: { reason: 'previous-hard', previousTokensAfter: 64_000 },
        rule: paying,
        cacheAware: true,
      },
    ],
    [
      'over hard, grown less than the band (hard − mid) since a hard that left it over mid: held',
      {
        tokens: 84_000,
        breaker: { ...base.breaker, previousTokensAfter: undefined, lastHardTokensAfter: 55_000 },
      },
      {
        kind: 'mid-else-hard',
        under: 50_000,
        breaker: { reason: 'previous-hard', previousTokensAfter: 55_000 },
        rule: paying,
        cacheAware: true,
      },
    ],
    [
      'over hard, grown the band since a hard that left it over mid: hard may run',
      { tokens: 85_000, breaker: { ...base.breaker, lastHardTokensAfter: 55_000 } },
      { kind: 'mid-else-hard', under: 50_000, breaker: undefined, rule: paying, cacheAware: true },
    ],
    [
      'over hard, grown less than the band, but over the window: hard may run (an overflow is worse)',
      { tokens: 84_000, breaker: { ...base.breaker, lastHardTokensAfter: 55_000, fitsWindow: false } },
      { kind: 'mid-else-hard', under: 50_000, breaker: undefined, rule: paying, cacheAware: true },
    ],
    [
      'over hard after a hard that got under mid: hard may run however little it grew',
      { tokens: 81_000, breaker: { ...base.breaker, lastHardTokensAfter: 45_000 } },
      { kind: 'mid-else-hard', under: 50_000, breaker: undefined, rule: paying, cacheAware: true },
    ],
    [
      'between the thresholds, cache expired, a summary pays for its call: mid when under mid, else hard',
      {
        tokens: 70_000,
        cacheExpired: true,
        expiredSummary: { keptTokens: 10_000, summaryOutputTokens: 2_000 },
      },
      {
        kind: 'mid-else-hard',
        under: 50_000,
        breaker: undefined,
        rule: { minFreed: 0, payback: false },
        cacheAware: false,
      },
    ],
    [
      'between the thresholds, cache expired, a summary would leave too much to pay: mid whatever it frees',
      {
        tokens: 70_000,
        cacheExpired: true,
        expiredSummary: { keptTokens: 50_000, summaryOutputTokens: 2_000 },
      },
      { kind: 'mid-else-micro', rule: { minFreed: 0, payback: false }, cacheAware: false },
    ],
    [
      'between the thresholds, cache expired, a summary pays but the breaker holds it: mid whatever it frees',
      {
        tokens: 70_000,
        cacheExpired: true,
        expiredSummary: { keptTokens: 10_000, summaryOutputTokens: 2_000 },
        breaker: { ...base.breaker, lastHardTokensAfter: 55_000 },
      },
      { kind: 'mid-else-micro', rule: { minFreed: 0, payback: false }, cacheAware: false },
    ],
    [
      'over hard, cache expired: mid whatever its rewrite costs (nothing is cached)',
      { tokens: 90_000, cacheExpired: true },
      {
        kind: 'mid-else-hard',
        under: 50_000,
        breaker: undefined,
        rule: { minFreed: 0, payback: false },
        cacheAware: false,
      },
    ],
    [
      'force hard wins, even with the breaker open',
      {
        force: 'hard',
        tokens: 90_000,
        breaker: {
          lastHardTokensAfter: undefined,
          fitsWindow: true,
          previousTokensAfter: 60_000,
          floorTokens: 60_000,
          historyTokens: 30_000,
        },
      },
      { kind: 'hard' },
    ],
    [
      'force mid wins, even over hard',
      { force: 'mid', tokens: 90_000 },
      { kind: 'mid-else-micro', rule: { minFreed: 0, payback: false }, cacheAware: true },
    ],
    [
      'force wins over a ready background summary',
      { force: 'mid', background: background('ready') },
      { kind: 'mid-else-micro', rule: { minFreed: 0, payback: false }, cacheAware: true },
    ],
    [
      'background, under its threshold: the usual layers',
      { background: background('none') },
      { kind: 'micro', cacheAware: true },
    ],
    [
      'background, over its threshold and mid not enough: start and hold',
      { tokens: 65_000, background: background('none') },
      { kind: 'hold', start: true },
    ],
    [
      'background, over its threshold but mid enough: the usual layers',
      { tokens: 65_000, midEstimate: 20_000, background: background('none') },
      { kind: 'mid-else-micro', rule: { minFreed: 20_000, payback: true }, cacheAware: true },
    ],
    [
      'background, over its limit: no start, the usual layers',
      { tokens: 78_000, background: background('none') },
      { kind: 'micro', cacheAware: true },
    ],
    [
      'background running, under its limit: hold',
      { tokens: 70_000, background: background('running') },
      { kind: 'hold', start: false },
    ],
    [
      'background running, over its limit: mid else await',
      { tokens: 76_000, background: background('running') },
      { kind: 'await', under: 75_000 },
    ],
    ['background ready: swap in', { background: background('ready') }, { kind: 'swap-in' }],
    [
      'background failed: the usual layers, no new start on this call',
      { tokens: 90_000, background: background('failed') },
      { kind: 'mid-else-hard', under: 50_000, breaker: undefined, rule: paying, cacheAware: true },
    ],
  ])('%s', (_name, facts, step) => {
    expect(decideTurn({ ...base, ...facts })).toEqual(step);
  });
});

/** A plan that frees `freedTokens` of the `rewrittenTokens` from its first change to the end. */
const plan = (freedTokens: number, rewrittenTokens: number, changed = true): RewriteFacts => ({
  changed,
  freedTokens,
  rewrittenTokens,
});

describe('keepRewrite', () => {
  it.each<[string, Parameters<typeof keepRewrite>[0], RewriteFacts, boolean]>([
    ['a plan that changed nothing', { minFreed: 0, payback: false }, plan(0, 0, false), false],
    ['under minFreed', { minFreed: 20_000, payback: false }, plan(19_999, 19_999), false],
    [
      'no payback asked: any plan that frees minFreed',
      { minFreed: 0, payback: false },
      plan(100, 40_000),
      true,
    ],
    // 1.25 × 39,900 − 0.1 × 40,000 = 45,875 more now; 20 × 0.1 × 100 = 200 saved: never pays.
    ['a little freed of a long tail does not pay', { minFreed: 0, payback: true }, plan(100, 40_000), false],
    // 1.25 × 20,000 − 0.1 × 40,000 = 21,000 more now; 20 × 0.1 × 20,000 = 40,000 saved.
    ['half of the tail freed pays', { minFreed: 0, payback: true }, plan(20_000, 40_000), true],
    ['the rule of a cache-aware micro batch asks payback', microRule(true), plan(100, 40_000), false],
    ['the rule of micro without the cache keeps any batch', microRule(false), plan(100, 40_000), true],
  ])('%s', (_name, rule, facts, kept) => {
    expect(keepRewrite(rule, facts)).toBe(kept);
  });
});
