// Accuracy against real provider usage: the shared mini-swe-agent × Gemini 3 Pro runs replayed
// turn by turn (the full 180 runs are in `npm run bench -- tokens`; a third of them here).
import { describe, expect, it } from 'vitest';
import {
  hasMiniSweAgentData,
  loadReplayRuns,
  miniSweAgentTrajectoriesDir,
  quantile,
  type ReplayErrors,
  replayErrors,
} from '../bench/mini-swe-agent-replay.js';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.js';
import { createTiktokenCounter } from './index.js';

const dataPresent = hasMiniSweAgentData();

function summary(errors: ReplayErrors): string {
  const line = (label: string, values: number[]) =>
    `${label}: median ${(100 * quantile(values, 0.5)).toFixed(2)}%, p90 ${(100 * quantile(values, 0.9)).toFixed(2)}%`;
  return [
    line('chars/4 of JSON', errors.charactersOver4),
    line('unanchored', errors.unanchored),
    line('anchored', errors.anchored),
  ].join('\n');
}

describe.skipIf(!dataPresent)('token counts against provider usage (mini-swe-agent × Gemini 3 Pro)', () => {
  const runs = dataPresent ? loadReplayRuns({ every: 3 }) : [];

  it.each([
    ['o200k', createTiktokenCounter({ encoding: 'o200k' })],
    ['heuristic', createHeuristicCounter()],
  ])('%s, anchored to the previous turn, is within 2 percent median and 5 percent p90', (name, counter) => {
    const errors = replayErrors(runs, counter);
    const turns = errors.anchored.length;
    console.log(`${name}, ${runs.length} runs, ${turns} turns:\n${summary(errors)}`);
    expect(turns).toBeGreaterThan(1000);
    expect(quantile(errors.anchored, 0.5)).toBeLessThanOrEqual(0.02);
    expect(quantile(errors.anchored, 0.9)).toBeLessThanOrEqual(0.05);
    // Anchoring must beat both local estimates by a wide margin, or it is not doing its job.
    expect(quantile(errors.anchored, 0.9)).toBeLessThan(quantile(errors.unanchored, 0.5));
    expect(quantile(errors.anchored, 0.9)).toBeLessThan(quantile(errors.charactersOver4, 0.5));
  });
});

describe.skipIf(dataPresent)('token counts against provider usage', () => {
  it(`is skipped: the shared data folder ${miniSweAgentTrajectoriesDir} is absent`, () => {});
});
