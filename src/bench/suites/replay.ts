// Replays every shared agent run (../shared/data/trajectories) through every strategy — none, the
// seed port, agent-compact and the five peer policies — at --mid 8000 --hard 16000, as
// `agent-compact simulate` does, and prints cost with summary calls billed, prefix rewrites per 100
// turns, retention on one denominator, the time the agent waits for summaries, and the targets.
// Then next need per strategy there and on the shared sessions at --window 200000 (issue #32).
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { createExtractiveSummaryModel } from 'agent-compact';
import { importTranscriptFile } from 'agent-compact/importers';
import { createTiktokenCounter } from 'agent-compact/tokenizer';
import type { StrategySummary } from '../../simulate/replay.js';
import { peerNames, strategyNames } from '../../simulate/replay-strategies.js';
import type { StrategyName } from '../../simulate/replay-strategy.js';
import {
  type SimulationInput,
  type SimulationResult,
  simulate,
  simulationInputOf,
} from '../../simulate/simulate.js';
import { printNextNeedTargets, printSessionNextNeed } from '../replay-next-need.js';
import { printSurvivalTargets } from '../replay-survival-targets.js';

const thresholds = { mid: 8000, hard: 16000 };

/** agent-compact replayed again with other settings, as extra rows. */
const variantSettings = [
  { label: 'agent-compact --background', agentCompact: { hard: { background: true } } },
  {
    label: 'agent-compact (mid keep 2, batches 5/8 mid)',
    agentCompact: { micro: { clearAtLeast: 5000 }, mid: { keepToolResults: 2 } },
  },
  {
    label: 'agent-compact --background (mid keep 2, batches 5/8 mid)',
    agentCompact: { micro: { clearAtLeast: 5000 }, mid: { keepToolResults: 2 }, hard: { background: true } },
  },
];

async function transcriptFiles(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of (await readdir(directory, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) found.push(...(await transcriptFiles(path)));
    else if (entry.name.endsWith('.traj') || entry.name.endsWith('.traj.json')) found.push(path);
  }
  return found;
}

function perHundred(summary: StrategySummary): number {
  return summary.turns === 0 ? 0 : (summary.prefixRewrites / summary.turns) * 100;
}

function verdict(pass: boolean): string {
  return pass ? 'met' : 'MISSED';
}

/** Every shared run under `root`, ready to replay. */
async function loadInputs(root: string): Promise<SimulationInput[]> {
  const inputs: SimulationInput[] = [];
  for (const file of await transcriptFiles(root)) {
    inputs.push(simulationInputOf(relative(root, file), await importTranscriptFile(file)));
  }
  return inputs;
}

/** A labelled row of the table. */
interface Variant {
  label: string;
  summary: StrategySummary;
  result: SimulationResult;
}

/** agent-compact again with background summaries, and with the tuned settings measured below. */
async function simulateVariants(inputs: readonly SimulationInput[]): Promise<Variant[]> {
  const variants: Variant[] = [];
  for (const { label, agentCompact } of variantSettings) {
    const variant = await simulate(inputs, {
      strategies: ['agent-compact'],
      summarizer: createExtractiveSummaryModel(),
      counter: createTiktokenCounter(),
      agentCompact,
      ...thresholds,
    });
    variants.push({ label, summary: variant.total['agent-compact']!, result: variant });
  }
  return variants;
}

/** The timings of the whole replay (ms from `performance.now()`, CPU from `process.cpuUsage`). */
interface ReplayTimes {
  started: number;
  imported: number;
  finished: number;
  cpuSeconds: number;
}

/** Figures shared by the sections of the printout. */
interface Figures {
  result: SimulationResult;
  total: Record<StrategyName, StrategySummary>;
  none: StrategySummary;
  agent: StrategySummary;
  rows: Array<[string, StrategySummary]>;
  /** The cost without the agent's own output, which every strategy pays alike. */
  inputSideCost: (summary: StrategySummary) => number;
}

/** Prints the replay figures of all shared runs and how they compare with the targets. */
export async function run(): Promise<void> {
  const root = resolve(process.cwd(), '../shared/data/trajectories');
  if (
    !(await stat(root).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
    console.log(`skipped: ${root} is absent (the shared agent runs are not on this machine)`);
    return;
  }
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const inputs = await loadInputs(root);
  const imported = performance.now();
  const result: SimulationResult = await simulate(inputs, {
    // The trajectories record no compactions of the agent's own, so `actual` would only repeat `none`.
    strategies: strategyNames.filter((name) => name !== 'actual'),
    summarizer: createExtractiveSummaryModel(),
    counter: createTiktokenCounter(),
    ...thresholds,
  });
  const finished = performance.now();
  const cpu = process.cpuUsage(cpuStarted);
  const variants = await simulateVariants(inputs);
  const times: ReplayTimes = { started, imported, finished, cpuSeconds: (cpu.user + cpu.system) / 1e6 };

  const total = result.total as Record<StrategyName, StrategySummary>;
  const figures: Figures = {
    result,
    total,
    none: total.none,
    agent: total['agent-compact'],
    rows: [
      ...result.strategies.map((name): [string, StrategySummary] => [name, total[name]]),
      ...variants.map(({ label, summary }): [string, StrategySummary] => [label, summary]),
    ],
    inputSideCost: (summary) =>
      summary.cost - (summary.outputTokens * result.prices.outputPerMillion) / 1_000_000,
  };
  printTable(figures, inputs.length);
  printTargets(figures, variants[0]!.summary, times);
  printRetentionByKind(figures);
  printSurvivalTargets(result, [
    { label: 'agent-compact', result },
    { label: variants[0]!.label, result: variants[0]!.result },
  ]);
  printByLayer(result);
  printFloor(figures.none);
  printNextNeedTargets(
    result,
    `${inputs.length} trajectories at --mid ${thresholds.mid} --hard ${thresholds.hard}`,
  );
  const sessions = resolve(process.cwd(), '../shared/data/sessions');
  if (
    await stat(sessions).then(
      (info) => info.isDirectory(),
      () => false,
    )
  )
    await printSessionNextNeed(sessions);
}

function printTable({ result, none, rows, inputSideCost }: Figures, runs: number): void {
  console.log(
    `${runs} runs (${result.files.filter((file) => file.format === 'mini-swe-agent').length} mini-swe-agent, ${result.files.filter((file) => file.format === 'swe-agent').length} SWE-agent), ${none.turns.toLocaleString('en-US')} assistant turns, --mid ${thresholds.mid} --hard ${thresholds.hard}, o200k counts, extractive stand-in summary for every policy, Sonnet prices with prompt caching (summary calls billed), cache TTL ${result.clock.cacheTtlSeconds} s on recorded times, summary latency ${result.latency.ttftSeconds} s + input/${result.latency.prefillTokensPerSecond}/s + output/${result.latency.decodeTokensPerSecond}/s.\n`,
  );
  console.log(
    '| strategy | billed input ÷ none | cost | cost ÷ none | input-side cost ÷ none | peak tokens | summary calls | summary cost | prefix rewrites / 100 turns | micro / mid / hard | retention (one denominator) | of compacted | blocked s | longest wait s | replay ms |',
  );
  console.log(
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const [name, summary] of rows) {
    console.log(
      `| ${name} | ${(summary.billedInputTokens / none.billedInputTokens).toFixed(2)}× | $${summary.cost.toFixed(2)} | ${(summary.cost / none.cost).toFixed(3)}× | ${(inputSideCost(summary) / inputSideCost(none)).toFixed(3)}× | ${summary.peakTokens.toLocaleString('en-US')} | ${summary.summaryCalls} | $${summary.summaryCost.toFixed(2)} | ${perHundred(summary).toFixed(1)} | ${summary.compactions.micro} / ${summary.compactions.mid} / ${summary.compactions.hard} | ${(summary.retention * 100).toFixed(1)}% (${summary.factsVisible}/${summary.facts}) | ${(summary.retentionOfCompacted * 100).toFixed(1)}% | ${summary.blockedSeconds.toFixed(0)} | ${summary.longestWaitSeconds.toFixed(1)} | ${Math.round(summary.durationMs).toLocaleString('en-US')} |`,
    );
  }
}

function printTargets(
  { result, total, none, agent, rows, inputSideCost }: Figures,
  background: StrategySummary,
  { started, imported, finished, cpuSeconds }: ReplayTimes,
): void {
  const wallSeconds = (finished - started) / 1000;
  console.log(
    `\nWall time: ${wallSeconds.toFixed(1)} s for the whole replay of every strategy (reading ${((imported - started) / 1000).toFixed(1)} s, replay ${((finished - imported) / 1000).toFixed(1)} s); CPU time ${cpuSeconds.toFixed(1)} s.`,
  );
  const peers = peerNames.map((name) => ({ name, summary: total[name] }));
  const dominating = peers.filter(
    ({ summary }) => summary.cost < agent.cost && summary.retention > agent.retention,
  );
  const retaining = result.strategies
    .filter((name) => total[name].retention >= 0.8)
    .sort((left, right) => total[left].cost - total[right].cost);
  console.log('\nTargets (agent-compact):');
  console.log(
    `- no peer both cheaper and better at retention: ${dominating.length === 0 ? 'none' : dominating.map(({ name }) => name).join(', ')} — ${verdict(dominating.length === 0)}`,
  );
  console.log(
    `- cheapest of the strategies retaining ≥ 80%: ${retaining[0] ?? '(none)'} (${retaining.map((name) => `${name} $${total[name].cost.toFixed(2)}`).join(', ')}) — ${verdict(retaining[0] === 'agent-compact')}`,
  );
  console.log(
    `- cost at most 0.6× none, summary calls billed: ${(agent.cost / none.cost).toFixed(3)}× (input side, without the agent's own output that every strategy pays alike: ${(inputSideCost(agent) / inputSideCost(none)).toFixed(3)}×) — ${verdict(agent.cost <= none.cost * 0.6)}`,
  );
  console.log(
    `- background: blocked time at most 10% of foreground's: ${background.blockedSeconds.toFixed(0)} s of ${agent.blockedSeconds.toFixed(0)} s = ${((background.blockedSeconds / agent.blockedSeconds) * 100).toFixed(1)}% — ${verdict(background.blockedSeconds <= agent.blockedSeconds * 0.1)}`,
  );
  console.log(
    `- background: cost within 5% of foreground's: ${((background.cost / agent.cost - 1) * 100).toFixed(1)}% — ${verdict(background.cost <= agent.cost * 1.05)}`,
  );
  console.log(
    `- at most 5 prefix rewrites per 100 turns: ${perHundred(agent).toFixed(1)} — ${verdict(perHundred(agent) <= 5)}`,
  );
  console.log(
    `- at least 80% of key facts retained (one denominator): ${(agent.retention * 100).toFixed(1)}% — ${verdict(agent.retention >= 0.8)}`,
  );
  console.log(`- whole replay under 60 s: ${wallSeconds.toFixed(1)} s — ${verdict(wallSeconds < 60)}`);
  console.log(
    `\nContext overflows (the compactor refused to summarize twice in a row; the history went as it was): ${rows.map(([name, summary]) => `${name} ${summary.contextOverflows}`).join(', ')}. Requests after the cache lifetime: ${none.cacheExpiries}.`,
  );
}

function printRetentionByKind({ result, total }: Figures): void {
  console.log('\nRetention by kind of fact (visible / facts of compacted-away calls):');
  for (const name of result.strategies.filter((strategy) => strategy !== 'none')) {
    const kinds = Object.entries(total[name].factsByKind)
      .map(
        ([kind, { facts, visible }]) =>
          `${kind} ${visible}/${facts} (${facts === 0 ? '—' : `${((visible / facts) * 100).toFixed(1)}%`})`,
      )
      .join(', ');
    console.log(`- ${name}: ${kinds}`);
  }
}

/** Where agent-compact's rewrites and bill come from, by the layer that fired on the turn. */
function printByLayer(result: SimulationResult): void {
  const byLayer = new Map<string, { turns: number; rewrites: number; billed: number; sent: number }>();
  for (const file of result.files) {
    for (const turn of file.strategies['agent-compact']?.turns ?? []) {
      const entry = byLayer.get(turn.layer) ?? { turns: 0, rewrites: 0, billed: 0, sent: 0 };
      entry.turns++;
      if (turn.prefixRewrite) entry.rewrites++;
      entry.billed += turn.billedInputTokens;
      entry.sent += turn.inputTokens;
      byLayer.set(turn.layer, entry);
    }
  }
  console.log('\nagent-compact by the layer that fired on the turn:');
  console.log('| layer | turns | prefix rewrites | billed input | mean tokens sent |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const layer of ['none', 'micro', 'mid', 'hard']) {
    const entry = byLayer.get(layer);
    if (!entry) continue;
    console.log(
      `| ${layer} | ${entry.turns.toLocaleString('en-US')} | ${entry.rewrites.toLocaleString('en-US')} | ${Math.round(entry.billed).toLocaleString('en-US')} | ${Math.round(entry.sent / entry.turns).toLocaleString('en-US')} |`,
    );
  }
}

/** The part of the bill no strategy can avoid: writing each turn's new messages to the cache. */
function printFloor(none: StrategySummary): void {
  const newTokensFloor = none.cacheWriteTokens * 1.25;
  console.log(
    `\nFloor: none writes ${none.cacheWriteTokens.toLocaleString('en-US')} new tokens to the cache over the runs (${Math.round(newTokensFloor).toLocaleString('en-US')} billed, ${((newTokensFloor / none.billedInputTokens) * 100).toFixed(0)}% of none's bill); every strategy pays for those, plus reads of what it keeps.`,
  );
}
