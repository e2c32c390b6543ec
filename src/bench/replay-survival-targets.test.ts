import { describe, expect, it, vi } from 'vitest';
import type { SimulationResult } from '../simulate/simulate.js';
import { emptySurvival } from '../simulate/survival.js';
import { largestRuns, printSurvivalTargets } from './replay-survival-targets.js';

/** A replay result with only what the targets read: per file none's peak and each strategy's facts. */
function result(agentVisible: number): SimulationResult {
  const summary = (peakTokens: number, factsVisible: number, cost: number, retention: number) => ({
    summary: { peakTokens, factsVisible, facts: 10, cost, retention },
  });
  const files = [100, 900, 500].map((peak, index) => ({
    file: `run-${index}`,
    strategies: {
      none: summary(peak, 10, 1, 1),
      seed: summary(0, 5, 1, 0.5),
      'agent-compact': summary(0, agentVisible, 1, agentVisible / 10),
    },
  }));
  const survival = emptySurvival();
  survival.commands = { visible: 9, total: 10 };
  return {
    files,
    total: {
      'agent-compact': { cost: 3, retention: agentVisible / 10 },
      'claude-code': { cost: 4, retention: 0.8 },
    },
    survival: { 'agent-compact': { last: survival }, 'claude-code': { last: emptySurvival() } },
  } as unknown as SimulationResult;
}

describe('replay: issue #18 targets', () => {
  it('picks the runs with the largest uncompacted request', () => {
    expect(largestRuns(result(9), 2)).toEqual(['run-1', 'run-2']);
  });

  it('marks a target missed when agent-compact is not above the seed on the largest runs', () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    printSurvivalTargets(result(9), [
      { label: 'ahead', result: result(9) },
      { label: 'behind', result: result(4) },
    ]);
    vi.restoreAllMocks();
    expect(lines.find((line) => line.startsWith('- ahead'))).toMatch(/against the seed's 50\.0% — met$/);
    expect(lines.find((line) => line.startsWith('- behind'))).toMatch(
      /retention 40\.0% — MISSED.*against the seed's 50\.0% — MISSED$/,
    );
  });
});
