// The next-need shares of a replay (docs/simulate.md "Next need"), per strategy at its own
// compaction points with its cost, and issue #32's target: agent-compact's share ahead of every
// peer policy and of `actual`, at a cost no higher than the cheapest peer's. The replay bench prints
// them for the shared trajectories and for the shared sessions at --window 200000.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createExtractiveSummaryModel } from 'agent-compact';
import { importTranscriptFile } from 'agent-compact/importers';
import { createTiktokenCounter } from 'agent-compact/tokenizer';
import { type NextNeed, type NextNeedCount, nextNeedKinds } from '../simulate/next-need.js';
import { peerNames } from '../simulate/replay-strategies.js';
import type { StrategyName } from '../simulate/replay-strategy.js';
import { type SimulationResult, simulate, simulationInputOf } from '../simulate/simulate.js';
import { nextNeedTable, share } from './next-need-table.js';

/** Issue #32: the window the shared sessions are replayed at. */
const SESSION_WINDOW = 200_000;

/** Every kind pooled. */
function pooled(need: NextNeed): NextNeedCount {
  let visible = 0;
  let total = 0;
  for (const kind of nextNeedKinds) {
    visible += need[kind].visible;
    total += need[kind].total;
  }
  return { visible, total };
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

type NextNeedEntry = SimulationResult['nextNeed'][StrategyName];

/** The points a table pools: every compaction, or the summaries only. */
const pointSets = [
  {
    title: 'every request a layer changed',
    pick: (entry: NonNullable<NextNeedEntry>) => ({ nextNeed: entry.nextNeed, points: entry.points }),
  },
  {
    title: 'the summaries only (hard)',
    pick: (entry: NonNullable<NextNeedEntry>) => ({ nextNeed: entry.atHard, points: entry.hardPoints }),
  },
];

/** The tables per strategy (every point, then hard points) and the verdict against every peer and `actual`. */
export function printNextNeedTargets(result: SimulationResult, title: string): void {
  const shown = result.strategies.filter((name) => name !== 'none' && result.nextNeed[name] !== undefined);
  for (const { title: points, pick } of pointSets) {
    const picked = new Map(shown.map((name) => [name, pick(result.nextNeed[name]!)]));
    console.log(
      `\n${title}: next need at each strategy's own compaction points (${points}), next ${result.nextCalls} tool calls (docs/simulate.md "Next need")\n`,
    );
    console.log(
      nextNeedTable(
        shown.map((name) => ({ label: name, ...picked.get(name)!, cost: result.total[name]!.cost })),
      ),
    );
    printVerdict(result, shown, (name) => picked.get(name)?.nextNeed);
  }
}

function printVerdict(
  result: SimulationResult,
  shown: readonly StrategyName[],
  needOf: (name: StrategyName) => NextNeed | undefined,
): void {
  const ours = needOf('agent-compact');
  if (!ours) return;
  const rivals = shown.filter((name) => (peerNames as readonly string[]).includes(name) || name === 'actual');
  const peers = rivals.filter((name) => name !== 'actual');
  const cheapest = Math.min(...peers.map((name) => result.total[name]!.cost));
  const cost = result.total['agent-compact']!.cost;
  const verdict = (pass: boolean) => (pass ? 'met' : 'MISSED');
  const ahead = (count: (need: NextNeed) => NextNeedCount) => {
    const counted = rivals.filter((name) => count(needOf(name)!).total > 0);
    if (count(ours).total === 0) return 'n/a (no items counted)';
    const own = share(count(ours));
    const best = Math.max(0, ...counted.map((name) => share(count(needOf(name)!))));
    return `${percent(own)} against the best of the others' ${percent(best)} — ${verdict(own > best)}`;
  };
  console.log(`\nIssue #32 target (agent-compact ahead of ${rivals.join(', ')}):`);
  console.log(`- every kind pooled: ${ahead(pooled)}`);
  for (const kind of nextNeedKinds) console.log(`- ${kind}: ${ahead((need) => need[kind])}`);
  console.log(
    `- cost $${cost.toFixed(2)} against the cheapest peer's $${cheapest.toFixed(2)} — ${verdict(cost <= cheapest)}`,
  );
}

/** Replays the shared sessions at --window 200000 (agent-compact, actual, the peers) and prints next need. */
export async function printSessionNextNeed(root: string): Promise<void> {
  const started = performance.now();
  const inputs = [];
  for (const folder of (await readdir(root, { withFileTypes: true })).filter((entry) =>
    entry.isDirectory(),
  )) {
    const directory = join(root, folder.name);
    for (const file of (await readdir(directory)).filter((name) => name.endsWith('.jsonl')).sort()) {
      inputs.push(
        simulationInputOf(`${folder.name}/${file}`, await importTranscriptFile(join(directory, file))),
      );
    }
  }
  const result = await simulate(inputs, {
    strategies: ['agent-compact', 'actual', ...peerNames],
    summarizer: createExtractiveSummaryModel(),
    counter: createTiktokenCounter(),
    window: SESSION_WINDOW,
  });
  printNextNeedTargets(
    result,
    `${inputs.length} shared sessions at --window ${SESSION_WINDOW} (peers at their default 50,000 / 80,000), replayed in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
