// Issue #18's targets on the shared trajectories: agent-compact's retention and survival ahead of
// every peer policy's at a cost no higher than the cheapest peer's, and on the six largest runs its
// retention above the seed's — for foreground and background summaries alike.
import type { StrategySummary } from '../simulate/replay.js';
import { peerNames } from '../simulate/replay-strategies.js';
import type { StrategyName } from '../simulate/replay-strategy.js';
import type { SimulationResult } from '../simulate/simulate.js';
import { type Survival, survivalKinds } from '../simulate/survival.js';

/** How many of the largest runs (by the tokens `none` sends at its largest request) are compared with the seed. */
const LARGEST_RUNS = 6;

/** agent-compact's figures from one replay of every run. */
export interface AgentCompactRun {
  label: string;
  result: SimulationResult;
}

/** Every kind of fact pooled: visible ÷ facts at the last request. */
function pooledSurvival(survival: Survival | undefined): number {
  if (!survival) return 0;
  let visible = 0;
  let total = 0;
  for (const kind of survivalKinds) {
    visible += survival[kind].visible;
    total += survival[kind].total;
  }
  return total === 0 ? 0 : visible / total;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** Retention pooled over the given files for one strategy. */
function retentionOf(result: SimulationResult, files: ReadonlySet<string>, name: StrategyName): number {
  let visible = 0;
  let facts = 0;
  for (const file of result.files) {
    const summary = files.has(file.file) ? file.strategies[name]?.summary : undefined;
    if (!summary) continue;
    visible += summary.factsVisible;
    facts += summary.facts;
  }
  return facts === 0 ? 0 : visible / facts;
}

/** The `count` runs whose largest uncompacted request is largest. */
export function largestRuns(result: SimulationResult, count = LARGEST_RUNS): string[] {
  return result.files
    .map((file) => ({ file: file.file, peak: file.strategies.none?.summary.peakTokens ?? 0 }))
    .sort((left, right) => right.peak - left.peak)
    .slice(0, count)
    .map(({ file }) => file);
}

/**
 * Prints survival at the last request per strategy and whether each agent-compact run is ahead of
 * every peer at a cost no higher than the cheapest peer's, and above the seed on the largest runs.
 */
export function printSurvivalTargets(baseline: SimulationResult, runs: readonly AgentCompactRun[]): void {
  const total = baseline.total as Record<StrategyName, StrategySummary>;
  const peers = peerNames.filter((name) => total[name] !== undefined);
  const largest = new Set(largestRuns(baseline));
  console.log(
    `\nSurvival at the last request, every kind pooled (docs/simulate.md "Survival"): ${['seed', ...peers]
      .map((name) => `${name} ${percent(pooledSurvival(baseline.survival[name as StrategyName]?.last))}`)
      .join(', ')}`,
  );
  const bestRetention = Math.max(...peers.map((name) => total[name].retention));
  const bestSurvival = Math.max(...peers.map((name) => pooledSurvival(baseline.survival[name]?.last)));
  const cheapest = Math.min(...peers.map((name) => total[name].cost));
  const seedLargest = retentionOf(baseline, largest, 'seed');
  console.log(
    `\nIssue #18 targets on these runs (best peer retention ${percent(bestRetention)}, survival ${percent(bestSurvival)}, cheapest peer $${cheapest.toFixed(2)}; ${LARGEST_RUNS} largest runs: ${[...largest].join(', ')}):`,
  );
  for (const { label, result } of runs) {
    const agent = result.total['agent-compact']!;
    const survival = pooledSurvival(result.survival['agent-compact']?.last);
    const largestRetention = retentionOf(result, largest, 'agent-compact');
    const verdict = (pass: boolean) => (pass ? 'met' : 'MISSED');
    console.log(
      `- ${label}: retention ${percent(agent.retention)} — ${verdict(agent.retention > bestRetention)}; survival ${percent(survival)} — ${verdict(survival > bestSurvival)}; cost $${agent.cost.toFixed(2)} — ${verdict(agent.cost <= cheapest)}; ${LARGEST_RUNS} largest runs retention ${percent(largestRetention)} against the seed's ${percent(seedLargest)} — ${verdict(largestRetention > seedLargest)}`,
    );
  }
}
