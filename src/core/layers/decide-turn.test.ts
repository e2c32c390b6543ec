import { describe, expect, it } from 'vitest';
import { decideTurn, type TurnFacts, type TurnStep } from './decide-turn.js';

/** mid 50k, hard 80k, cache-aware micro batching 20k, nothing else going on. */
const base: TurnFacts = {
  tokens: 10_000,
  limits: { mid: 50_000, hard: 80_000 },
  force: undefined,
  micro: { cacheAware: true, clearAtLeast: 20_000 },
  cacheExpired: false,
  midEstimate: 0,
  breaker: { previousTokensAfter: undefined, floorTokens: 5_000 },
  background: undefined,
};
const background = (job: 'none' | 'running' | 'ready' | 'failed') => ({
  threshold: 60_000,
  limit: 75_000,
  job,
});

describe('decideTurn', () => {
  it.each<[string, Partial<TurnFacts>, TurnStep]>([
    ['under mid: micro', {}, { kind: 'micro', cacheAware: true }],
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
      { kind: 'mid-else-micro', minFreed: 20_000, cacheAware: true },
    ],
    [
      'between the thresholds, cache expired: mid whatever it frees',
      { tokens: 60_000, cacheExpired: true },
      { kind: 'mid-else-micro', minFreed: 0, cacheAware: false },
    ],
    [
      'between the thresholds, micro not cache-aware: mid whatever it frees',
      { tokens: 60_000, micro: { cacheAware: false, clearAtLeast: 20_000 } },
      { kind: 'mid-else-micro', minFreed: 0, cacheAware: false },
    ],
    [
      'over hard: mid when it gets under mid, else hard',
      { tokens: 90_000 },
      { kind: 'mid-else-hard', under: 50_000, breaker: undefined, cacheAware: true },
    ],
    [
      'over hard after a hard that left the request over mid: the breaker holds hard',
      { tokens: 90_000, breaker: { previousTokensAfter: 55_000, floorTokens: 5_000 } },
      {
        kind: 'mid-else-hard',
        under: 50_000,
        breaker: { reason: 'previous-hard', previousTokensAfter: 55_000 },
        cacheAware: true,
      },
    ],
    [
      'over hard after a hard that got under mid: hard may run',
      { tokens: 90_000, breaker: { previousTokensAfter: 45_000, floorTokens: 5_000 } },
      { kind: 'mid-else-hard', under: 50_000, breaker: undefined, cacheAware: true },
    ],
    [
      'over hard with a floor over mid: even a perfect summary would not help',
      { tokens: 90_000, breaker: { previousTokensAfter: undefined, floorTokens: 51_000 } },
      {
        kind: 'mid-else-hard',
        under: 50_000,
        breaker: { reason: 'fixed-overhead', floorTokens: 51_000 },
        cacheAware: true,
      },
    ],
    [
      'force hard wins, even with the breaker open',
      { force: 'hard', tokens: 90_000, breaker: { previousTokensAfter: 60_000, floorTokens: 60_000 } },
      { kind: 'hard' },
    ],
    [
      'force mid wins, even over hard',
      { force: 'mid', tokens: 90_000 },
      { kind: 'mid-else-micro', minFreed: 0, cacheAware: true },
    ],
    [
      'force wins over a ready background summary',
      { force: 'mid', background: background('ready') },
      { kind: 'mid-else-micro', minFreed: 0, cacheAware: true },
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
      { kind: 'mid-else-micro', minFreed: 20_000, cacheAware: true },
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
      { kind: 'mid-else-hard', under: 50_000, breaker: undefined, cacheAware: true },
    ],
  ])('%s', (_name, facts, step) => {
    expect(decideTurn({ ...base, ...facts })).toEqual(step);
  });
});
