import type { TurnFacts } from './decide-turn.js';

/** mid 50k, hard 80k, cache-aware micro batching 20k from the first token, nothing else going on. */
export const baseFacts: TurnFacts = {
  tokens: 10_000,
  limits: { mid: 50_000, hard: 80_000 },
  force: undefined,
  micro: { cacheAware: true, clearAtLeast: 20_000, startAt: 0 },
  cacheExpired: false,
  midEstimate: 0,
  breaker: {
    lastHardTokensAfter: undefined,
    fitsWindow: true,
    previousTokensAfter: undefined,
    floorTokens: 5_000,
    historyTokens: 5_000,
  },
  expiredSummary: undefined,
  background: undefined,
};
