/**
 * The two printed forms of a simulation: the `--json` object other tools script against, and the
 * plain-text table for people.
 */

import { type NextNeed, nextNeedKinds } from './next-need.js';
import type { StrategySummary } from './replay.js';
import type { StrategyName } from './replay-strategy.js';
import { formatCost, formatInteger, formatPercent } from './report.js';
import type { SimulationResult } from './simulate.js';
import { type Survival, survivalKinds } from './survival.js';

/**
 * One strategy's figures in the `--json` output. The field names are a contract: `turns`,
 * `peakTokens`, `billedInputTokens`, `cost`, `prefixRewrites`, `compactions` and `retention` are
 * always there.
 */
export interface StrategyJson extends Omit<StrategySummary, 'factsByKind' | 'durationMs'> {
  /** Mid's cache rewrites per 100 requests (`midRewrites` ÷ `turns` × 100, one decimal). */
  midRewritesPer100Turns: number;
  /** The thresholds in force, where the strategy has them. */
  thresholds?: { mid: number; hard: number };
  /** Facts of the history still visible at the last request, per kind (see docs/simulate.md). */
  survival?: Survival;
  /** The same at the recording agent's own compaction points, pooled; only where it made some. */
  survivalAtCompactions?: Survival;
  /**
   * What the next tool calls used that the history held, still visible, per kind, pooled over the
   * strategy's own compaction points (see docs/simulate.md "Next need").
   */
  nextNeed?: NextNeed;
  /** How many compaction points `nextNeed` pools. */
  nextNeedPoints?: number;
  /** The same at the points where the strategy summarized (`hard`) only. */
  nextNeedAtHard?: NextNeed;
  /** How many hard points `nextNeedAtHard` pools. */
  nextNeedHardPoints?: number;
}

/** One file in the `--json` output: its name, format, and one object per strategy. */
export type FileJson = { file: string; format: string } & Partial<Record<StrategyName, StrategyJson>>;

/** The whole `--json` output. */
export interface SimulationJson {
  files: FileJson[];
  total: Partial<Record<StrategyName, StrategyJson>>;
  /** How the figures were measured. */
  settings: {
    counter: string;
    prices: SimulationResult['prices'];
    /** Prices of summary calls (the agent's unless `--summary-model-price` said otherwise). */
    summaryPrices: SimulationResult['prices'];
    /** Cache lifetime and turn duration, seconds. */
    clock: SimulationResult['clock'];
    /** The latency model of summary calls. */
    latency: SimulationResult['latency'];
    strategies: StrategyName[];
    /** Tool calls after each compaction point the next-need probe looked at. */
    nextCalls: number;
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Mid's cache rewrites per 100 requests of a strategy's replay. */
export function midRewritesPer100Turns(summary: Pick<StrategySummary, 'midRewrites' | 'turns'>): number {
  return summary.turns === 0 ? 0 : (summary.midRewrites / summary.turns) * 100;
}

function strategyJson(summary: StrategySummary, thresholds?: { mid: number; hard: number }): StrategyJson {
  return {
    turns: summary.turns,
    peakTokens: summary.peakTokens,
    inputTokens: summary.inputTokens,
    billedInputTokens: round(summary.billedInputTokens, 1),
    cacheReadTokens: summary.cacheReadTokens,
    cacheWriteTokens: summary.cacheWriteTokens,
    outputTokens: summary.outputTokens,
    cost: round(summary.cost, 6),
    summaryCalls: summary.summaryCalls,
    summaryInputTokens: summary.summaryInputTokens,
    summaryCacheReadTokens: summary.summaryCacheReadTokens,
    summaryOutputTokens: summary.summaryOutputTokens,
    summaryCost: round(summary.summaryCost, 6),
    blockedSeconds: round(summary.blockedSeconds, 1),
    longestWaitSeconds: round(summary.longestWaitSeconds, 1),
    cacheExpiries: summary.cacheExpiries,
    contextOverflows: summary.contextOverflows,
    prefixRewrites: summary.prefixRewrites,
    midRewrites: summary.midRewrites,
    midRewritesPer100Turns: round(midRewritesPer100Turns(summary), 1),
    compactions: { ...summary.compactions },
    retention: round(summary.retention, 4),
    facts: summary.facts,
    factsVisible: summary.factsVisible,
    retentionOfCompacted: round(summary.retentionOfCompacted, 4),
    compactedFacts: summary.compactedFacts,
    compactedFactsVisible: summary.compactedFactsVisible,
    compactedCalls: summary.compactedCalls,
    ...(thresholds ? { thresholds: { ...thresholds } } : {}),
  };
}

/** The `--json` object of a simulation. */
export function simulationToJson(result: SimulationResult): SimulationJson {
  const files = result.files.map((file) => {
    const entry: FileJson = { file: file.file, format: file.format };
    for (const name of result.strategies) {
      const strategy = file.strategies[name];
      if (strategy)
        entry[name] = {
          ...strategyJson(strategy.summary, strategy.thresholds),
          survival: strategy.survival,
          ...(strategy.survivalAtCompactions
            ? { survivalAtCompactions: strategy.survivalAtCompactions }
            : {}),
          nextNeed: strategy.nextNeed,
          nextNeedPoints: strategy.nextNeedPoints,
          nextNeedAtHard: strategy.nextNeedAtHard,
          nextNeedHardPoints: strategy.nextNeedHardPoints,
        };
    }
    return entry;
  });
  const total: Partial<Record<StrategyName, StrategyJson>> = {};
  for (const name of result.strategies) {
    const summary = result.total[name];
    const survival = result.survival[name];
    if (summary)
      total[name] = {
        ...strategyJson(summary),
        ...(survival ? { survival: survival.last } : {}),
        ...(survival?.atCompactions ? { survivalAtCompactions: survival.atCompactions } : {}),
        ...nextNeedJson(result.nextNeed?.[name]),
      };
  }
  return {
    files,
    total,
    settings: {
      counter: result.counter,
      prices: { ...result.prices },
      summaryPrices: { ...result.summaryPrices },
      clock: { ...result.clock },
      latency: { ...result.latency },
      strategies: [...result.strategies],
      nextCalls: result.nextCalls,
    },
  };
}

function nextNeedJson(
  entry: SimulationResult['nextNeed'][StrategyName],
): Pick<StrategyJson, 'nextNeed' | 'nextNeedPoints' | 'nextNeedAtHard' | 'nextNeedHardPoints'> {
  return entry
    ? {
        nextNeed: entry.nextNeed,
        nextNeedPoints: entry.points,
        nextNeedAtHard: entry.atHard,
        nextNeedHardPoints: entry.hardPoints,
      }
    : {};
}

function pad(cells: string[][]): string {
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  return cells
    .map((row) =>
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
        .join('  '),
    )
    .join('\n');
}

/** One table, a row per strategy, with the billed input relative to `none` where it was replayed. */
export function summaryTableText(
  summaries: Partial<Record<StrategyName, StrategySummary>>,
  strategies: readonly StrategyName[],
): string {
  const base = summaries.none?.billedInputTokens;
  const rows = [
    [
      'strategy',
      'turns',
      'peak tokens',
      'billed input',
      'vs none',
      'cost',
      'prefix rewrites',
      'mid rewrites / 100 turns',
      'micro',
      'mid',
      'hard',
      'retention',
      'of compacted',
      'summaries',
      'summary cost',
      'blocked s',
      'longest wait s',
    ],
  ];
  for (const name of strategies) {
    const summary = summaries[name];
    if (!summary) continue;
    rows.push([
      name,
      formatInteger(summary.turns),
      formatInteger(summary.peakTokens),
      formatInteger(summary.billedInputTokens),
      base ? `${(summary.billedInputTokens / base).toFixed(2)}×` : '—',
      formatCost(summary.cost),
      formatInteger(summary.prefixRewrites),
      midRewritesPer100Turns(summary).toFixed(1),
      String(summary.compactions.micro),
      String(summary.compactions.mid),
      String(summary.compactions.hard),
      formatPercent(summary.retention),
      formatPercent(summary.retentionOfCompacted),
      formatInteger(summary.summaryCalls),
      formatCost(summary.summaryCost),
      summary.blockedSeconds.toFixed(1),
      summary.longestWaitSeconds.toFixed(1),
    ]);
  }
  return pad(rows);
}

function survivalPercent(count: { visible: number; total: number }): string {
  return count.total === 0 ? '—' : `${((count.visible / count.total) * 100).toFixed(0)}%`;
}

/** A row per strategy, a column per kind of fact: the share still visible (see docs/simulate.md). */
export function survivalTableText(
  result: Pick<SimulationResult, 'strategies'>,
  survivalOf: (name: StrategyName) => Survival | undefined,
): string {
  const rows = [['strategy', ...survivalKinds]];
  for (const name of result.strategies) {
    const survival = survivalOf(name);
    if (survival) rows.push([name, ...survivalKinds.map((kind) => survivalPercent(survival[kind]))]);
  }
  return pad(rows);
}

/**
 * A row per strategy, a column per kind of item: the share of what the next tool calls used that
 * the strategy's compacted contexts still showed, and how many compaction points it pools.
 */
export function nextNeedTableText(result: Pick<SimulationResult, 'strategies' | 'nextNeed'>): string {
  const rows = [['strategy', 'points', ...nextNeedKinds]];
  for (const name of result.strategies) {
    const entry = result.nextNeed?.[name];
    if (entry)
      rows.push([
        name,
        formatInteger(entry.points),
        ...nextNeedKinds.map((kind) => survivalPercent(entry.nextNeed[kind])),
      ]);
  }
  return pad(rows);
}

/** The plain-text output of `simulate`: per file when there are few, then the totals and how they were measured. */
export function simulationToText(result: SimulationResult, { perFileLimit = 5 } = {}): string {
  const blocks: string[] = [];
  if (result.files.length <= perFileLimit) {
    for (const file of result.files) {
      const summaries: Partial<Record<StrategyName, StrategySummary>> = {};
      for (const name of result.strategies) {
        const strategy = file.strategies[name];
        if (strategy) summaries[name] = strategy.summary;
      }
      const thresholds = result.strategies
        .map((name) => {
          const value = file.strategies[name]?.thresholds;
          return value ? `${name} ${formatInteger(value.mid)}/${formatInteger(value.hard)}` : undefined;
        })
        .filter((value) => value !== undefined);
      blocks.push(
        `${file.file} (${file.format})${thresholds.length > 0 ? ` — thresholds mid/hard: ${thresholds.join(', ')}` : ''}\n${summaryTableText(summaries, result.strategies)}`,
      );
    }
  }
  if (result.files.length !== 1) {
    blocks.push(
      `Total over ${result.files.length} files\n${summaryTableText(result.total, result.strategies)}`,
    );
  }
  const survivalAt = (name: StrategyName) => result.survival[name]?.atCompactions;
  blocks.push(
    `Survival at the last request\n${survivalTableText(result, (name) => result.survival[name]?.last)}`,
  );
  if (result.strategies.some((name) => survivalAt(name) !== undefined)) {
    blocks.push(`Survival at the agents' own compaction points\n${survivalTableText(result, survivalAt)}`);
  }
  if (result.nextNeed !== undefined) {
    blocks.push(
      `Next need at each strategy's own compaction points (next ${result.nextCalls} tool calls; docs/simulate.md "Next need")\n${nextNeedTableText(result)}`,
    );
  }
  const { prices } = result;
  blocks.push(
    [
      `Tokens: ${result.counter} for every strategy. Billed input: tokens reused from the previous request at ${prices.cacheReadMultiplier}× (cache read), the rest at ${prices.cacheWriteMultiplier}× (cache write).`,
      `Cost: ${prices.model} at $${prices.inputPerMillion}/MTok input, $${prices.outputPerMillion}/MTok output, summary calls included (${result.summaryPrices.model} at $${result.summaryPrices.inputPerMillion}/$${result.summaryPrices.outputPerMillion}). Retention: key facts of every tool call answered before the last request that it still shows; of compacted: of the calls the strategy compacted away.`,
      `Cache lifetime ${result.clock.cacheTtlSeconds} s (recorded times, else ${result.clock.turnSeconds} s a turn). A summary call blocks for ${result.latency.ttftSeconds} s + input ÷ ${formatInteger(result.latency.prefillTokensPerSecond)}/s + output ÷ ${formatInteger(result.latency.decodeTokensPerSecond)}/s.`,
    ].join('\n'),
  );
  return `${blocks.join('\n\n')}\n`;
}
