/**
 * Runs the replay of many transcripts through several strategies and gathers the figures the CLI,
 * the report and the benchmark print: per file, per strategy, and totals.
 */

import type { SummaryModel } from '../core/summary/summary-model.js';
import { createMemoizedCounter } from '../core/tokens/memoized-counter.js';
import type { TokenCounter } from '../core/tokens/token-counter.js';
import type { ImportedTranscript } from '../importers/imported-transcript.js';
import { createMeteredSummaryModel } from './metered-summary-model.js';
import { createRequestTokenCounter, defaultPriceTable, type PriceTable } from './prompt-cache.js';
import {
  addSummary,
  emptySummary,
  type ReplayTranscript,
  type ReplayTurn,
  replayTranscript,
  type StrategySummary,
} from './replay.js';
import {
  createReplayStrategy,
  type ReplayStrategyOptions,
  type StrategyName,
  strategyNames,
} from './replay-strategies.js';
import { defaultLatencyModel, defaultReplayClock, type LatencyModel, type ReplayClock } from './timing.js';

/** One transcript to replay. */
export interface SimulationInput {
  /** The file it came from (or any name). */
  file: string;
  /** The format it was read as. */
  format: string;
  transcript: ReplayTranscript;
}

/** A transcript read by `importTranscriptFile`, as the replay input named `file`. */
export function simulationInputOf(file: string, imported: ImportedTranscript): SimulationInput {
  return {
    file,
    format: imported.meta.format,
    transcript: {
      ...(imported.conversation.system === undefined ? {} : { system: imported.conversation.system }),
      messages: imported.conversation.messages,
      usage: imported.usage,
      ...(imported.timestamps === undefined ? {} : { timestamps: imported.timestamps }),
    },
  };
}

/** One strategy's replay of one file: its figures and, for the report, its turns. */
export interface FileStrategyResult {
  summary: StrategySummary;
  thresholds: { mid: number; hard: number } | undefined;
  turns: ReplayTurn[];
}

/** Every strategy's replay of one file. */
export interface FileResult {
  file: string;
  format: string;
  strategies: Partial<Record<StrategyName, FileStrategyResult>>;
}

/** Options of {@link simulate}. */
export interface SimulateOptions {
  /** The strategies to replay, in order. @default every strategy */
  strategies?: readonly StrategyName[];
  /** Mid threshold of every strategy. */
  mid?: number;
  /** Hard threshold of every strategy. */
  hard?: number;
  /** Context window for `agent-compact`. */
  window?: number;
  /** Writes hard summaries for `seed` and `agent-compact`. */
  summarizer: SummaryModel;
  /** Measures every request of every strategy (and is what `agent-compact` counts with). */
  counter: TokenCounter;
  /** More options of `agent-compact`'s compactor. */
  agentCompact?: ReplayStrategyOptions['agentCompact'];
  /** @default {@link defaultPriceTable} */
  prices?: PriceTable;
  /** Prices of summary calls. @default `prices` */
  summaryPrices?: PriceTable;
  /** Cache lifetime and turn duration. @default {@link defaultReplayClock} */
  clock?: ReplayClock;
  /** How long a summary call keeps the agent waiting. @default {@link defaultLatencyModel} */
  latency?: LatencyModel;
  /** Called after each file, e.g. for a progress bar. */
  onFile?: (done: number, total: number, file: string) => void;
}

/** What {@link simulate} returns. */
export interface SimulationResult {
  files: FileResult[];
  total: Partial<Record<StrategyName, StrategySummary>>;
  strategies: readonly StrategyName[];
  prices: PriceTable;
  summaryPrices: PriceTable;
  clock: ReplayClock;
  latency: LatencyModel;
  counter: string;
}

/**
 * Replays every input through every strategy, one file after another.
 *
 * @example
 * const result = await simulate([{ file: 'session.jsonl', format: 'anthropic', transcript }], {
 *   summarizer: createExtractiveSummaryModel(),
 *   counter: createTiktokenCounter(),
 * });
 * console.log(result.total['agent-compact']?.billedInputTokens);
 */
export async function simulate(
  inputs: readonly SimulationInput[],
  {
    strategies = strategyNames,
    mid,
    hard,
    window,
    summarizer,
    counter,
    agentCompact,
    prices = defaultPriceTable,
    summaryPrices = prices,
    clock = defaultReplayClock,
    latency = defaultLatencyModel,
    onFile,
  }: SimulateOptions,
): Promise<SimulationResult> {
  const total: Partial<Record<StrategyName, StrategySummary>> = {};
  for (const name of strategies) total[name] = emptySummary();
  const files: FileResult[] = [];
  for (const [index, input] of inputs.entries()) {
    // One cache per file, shared by the strategies: they count the same texts over and over.
    const fileCounter = createMemoizedCounter(counter);
    const tokens = createRequestTokenCounter(fileCounter);
    const result: FileResult = { file: input.file, format: input.format, strategies: {} };
    for (const name of strategies) {
      // Each strategy's summary calls are recorded so the replay bills them and times the waits.
      const metered = createMeteredSummaryModel(summarizer);
      const strategy = createReplayStrategy(name, {
        summarizer: metered,
        counter: fileCounter,
        tokens,
        ...(mid === undefined ? {} : { mid }),
        ...(hard === undefined ? {} : { hard }),
        ...(window === undefined ? {} : { window }),
        ...(agentCompact === undefined ? {} : { agentCompact }),
        cacheTtlSeconds: clock.cacheTtlSeconds,
        latency,
      });
      const replay = await replayTranscript(input.transcript, {
        strategy,
        tokens,
        prices,
        summaryPrices,
        summaryCalls: metered,
        clock,
        latency,
      });
      result.strategies[name] = {
        summary: replay.summary,
        thresholds: replay.thresholds,
        turns: replay.turns,
      };
      addSummary(total[name]!, replay.summary);
    }
    files.push(result);
    onFile?.(index + 1, inputs.length, input.file);
  }
  return { files, total, strategies, prices, summaryPrices, clock, latency, counter: counter.name };
}
