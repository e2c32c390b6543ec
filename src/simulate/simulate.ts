/**
 * Runs the replay of many transcripts through several strategies and gathers the figures the CLI,
 * the report and the benchmark print: per file, per strategy, and totals.
 */

import type { CompactionLayer, SummaryModel, TokenCounter } from 'agent-compact';
import { createMemoizedCounter } from 'agent-compact/counters';
import type { AgentCompaction, ImportedTranscript } from 'agent-compact/importers';
import { resolveSettings } from 'agent-compact/internal';
import { defaultPriceTable, type PriceTable } from '../proxy/price-table.js';
import { createMeteredSummaryModel } from './metered-summary-model.js';
import {
  addNextNeed,
  createNextNeedProbe,
  defaultNextCalls,
  emptyNextNeed,
  type NextNeed,
  type NextNeedProbe,
} from './next-need.js';
import { createRequestTokenCounter, type SentRequest } from './prompt-cache.js';
import {
  addSummary,
  emptySummary,
  type ReplayTranscript,
  type ReplayTurn,
  replayTranscript,
  type StrategySummary,
} from './replay.js';
import { createReplayStrategy, strategyNames } from './replay-strategies.js';
import type { ReplayStrategyOptions, StrategyName } from './replay-strategy.js';
import { addSurvival, emptySurvival, measureSurvival, type Survival } from './survival.js';
import { defaultLatencyModel, defaultReplayClock, type LatencyModel, type ReplayClock } from './timing.js';

/** One transcript to replay. */
export interface SimulationInput {
  /** The file it came from (or any name). */
  file: string;
  /** The format it was read as. */
  format: string;
  transcript: ReplayTranscript;
  /** The recording agent's own compactions: `actual` replays them, survival is measured at them. */
  compactions?: readonly AgentCompaction[];
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
      ...(imported.compactions?.length
        ? { compactedAt: Math.min(...imported.compactions.map((compaction) => compaction.index)) }
        : {}),
    },
    ...(imported.compactions === undefined ? {} : { compactions: imported.compactions }),
  };
}

/** One strategy's replay of one file: its figures and, for the report, its turns. */
export interface FileStrategyResult {
  summary: StrategySummary;
  thresholds: { mid: number; hard: number } | undefined;
  turns: ReplayTurn[];
  /** Facts of the history before the last request still visible in it, per kind. */
  survival: Survival;
  /** The same at each of the recording agent's own compaction points, pooled; absent when it made none. */
  survivalAtCompactions?: Survival;
  /**
   * Next need (`next-need.ts`) at each of this strategy's own compaction points (every request a
   * layer changed), pooled.
   */
  nextNeed: NextNeed;
  /** How many such points there were. */
  nextNeedPoints: number;
  /**
   * The same at the points where the strategy summarized (`hard`) only: a strategy that clears a
   * little on every request is measured at every request above, and here only where it summarized.
   */
  nextNeedAtHard: NextNeed;
  /** How many hard points there were. */
  nextNeedHardPoints: number;
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
  /** Tool calls after a compaction point the next-need probe looks at. @default 40 */
  nextCalls?: number;
  /** Called after each file, e.g. for a progress bar. */
  onFile?: (done: number, total: number, file: string) => void;
}

/** What {@link simulate} returns. */
export interface SimulationResult {
  files: FileResult[];
  total: Partial<Record<StrategyName, StrategySummary>>;
  /** Survival per strategy over every file, at the last request and at the agents' compaction points. */
  survival: Partial<Record<StrategyName, { last: Survival; atCompactions?: Survival }>>;
  /** Next need per strategy over every file, at its own compaction points, and how many there were. */
  nextNeed: Partial<
    Record<StrategyName, { nextNeed: NextNeed; points: number; atHard: NextNeed; hardPoints: number }>
  >;
  /** Tool calls after each point the next-need probe looked at. */
  nextCalls: number;
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
    mid: midOption,
    hard: hardOption,
    window,
    summarizer,
    counter,
    agentCompact,
    prices = defaultPriceTable,
    summaryPrices = prices,
    clock = defaultReplayClock,
    latency = defaultLatencyModel,
    nextCalls = defaultNextCalls,
    onFile,
  }: SimulateOptions,
): Promise<SimulationResult> {
  const { mid, hard } = runThresholds(window, midOption, hardOption);
  const totals: Totals = { total: {}, survival: {}, nextNeed: {} };
  for (const name of strategies) totals.total[name] = emptySummary();
  const files: FileResult[] = [];
  const settings = { mid, hard, window, summarizer, agentCompact, prices, summaryPrices, clock, latency };
  for (const [index, input] of inputs.entries()) {
    const result = await replayFile(input, strategies, settings, { counter, nextCalls });
    for (const name of strategies) addToTotals(totals, name, result.strategies[name]!);
    files.push(result);
    onFile?.(index + 1, inputs.length, input.file);
  }
  return {
    files,
    ...totals,
    nextCalls,
    strategies,
    prices,
    summaryPrices,
    clock,
    latency,
    counter: counter.name,
  };
}

/**
 * The thresholds every strategy runs at. With a window, those agent-compact derives from it: the
 * peers' triggers are the window's too (Claude Code compacts near the window's end), not 50k/80k.
 */
function runThresholds(
  window: number | undefined,
  mid: number | undefined,
  hard: number | undefined,
): { mid: number | undefined; hard: number | undefined } {
  if (window === undefined) return { mid, hard };
  const derived = resolveSettings({ contextWindow: window, thresholds: { mid, hard } }).limits;
  return { mid: derived.mid, hard: derived.hard };
}

/** One file replayed by every strategy, in order. */
async function replayFile(
  input: SimulationInput,
  strategies: readonly StrategyName[],
  settings: ReplaySettings,
  { counter, nextCalls }: { counter: TokenCounter; nextCalls: number },
): Promise<FileResult> {
  // One cache per file, shared by the strategies: they count the same texts over and over.
  const fileCounter = createMemoizedCounter(counter);
  const file: FileReplay = {
    input,
    counter: fileCounter,
    tokens: createRequestTokenCounter(fileCounter),
    needs: createNextNeedProbe(input.transcript, { nextCalls }),
  };
  const result: FileResult = { file: input.file, format: input.format, strategies: {} };
  for (const name of strategies) {
    const { replay, measured } = await replayStrategy(name, file, settings);
    result.strategies[name] = {
      summary: replay.summary,
      thresholds: replay.thresholds,
      turns: replay.turns,
      ...measured,
    };
  }
  return result;
}

/** What a simulation adds up over its files, per strategy. */
type Totals = Pick<SimulationResult, 'total' | 'survival' | 'nextNeed'>;

/** Adds one strategy's replay of one file to the totals. */
function addToTotals(totals: Totals, name: StrategyName, replayed: FileStrategyResult): void {
  addSummary(totals.total[name]!, replayed.summary);
  addStrategySurvival(totals.survival, name, replayed);
  addStrategyNextNeed(totals.nextNeed, name, replayed);
}

/** One file as every strategy replays it: its counters, shared, and its next-need probe. */
interface FileReplay {
  input: SimulationInput;
  counter: TokenCounter;
  tokens: ReturnType<typeof createRequestTokenCounter>;
  needs: NextNeedProbe;
}

/** The options of a simulation that every replay of it shares. */
type ReplaySettings = Pick<SimulateOptions, 'mid' | 'hard' | 'window' | 'summarizer' | 'agentCompact'> &
  Required<Pick<SimulateOptions, 'prices' | 'summaryPrices' | 'clock' | 'latency'>>;

/** Replays one file with one strategy, its probes watching every request. */
async function replayStrategy(name: StrategyName, file: FileReplay, settings: ReplaySettings) {
  const { input, tokens } = file;
  const { mid, hard, window, agentCompact, clock, latency } = settings;
  // Each strategy's summary calls are recorded so the replay bills them and times the waits.
  const metered = createMeteredSummaryModel(settings.summarizer);
  const strategy = createReplayStrategy(name, {
    summarizer: metered,
    counter: file.counter,
    tokens,
    ...(mid === undefined ? {} : { mid }),
    ...(hard === undefined ? {} : { hard }),
    ...(window === undefined ? {} : { window }),
    ...(agentCompact === undefined ? {} : { agentCompact }),
    ...(input.compactions === undefined ? {} : { compactions: input.compactions }),
    cacheTtlSeconds: clock.cacheTtlSeconds,
    latency,
  });
  const probe = createSurvivalProbe(input, file.needs);
  const replay = await replayTranscript(input.transcript, {
    onRequest: probe.onRequest,
    strategy,
    tokens,
    prices: settings.prices,
    summaryPrices: settings.summaryPrices,
    summaryCalls: metered,
    clock,
    latency,
  });
  return { replay, measured: probe.result() };
}

function addStrategyNextNeed(
  nextNeed: SimulationResult['nextNeed'],
  name: StrategyName,
  measured: ProbeResult,
): void {
  nextNeed[name] ??= { nextNeed: emptyNextNeed(), points: 0, atHard: emptyNextNeed(), hardPoints: 0 };
  addNextNeed(nextNeed[name].nextNeed, measured.nextNeed);
  nextNeed[name].points += measured.nextNeedPoints;
  addNextNeed(nextNeed[name].atHard, measured.nextNeedAtHard);
  nextNeed[name].hardPoints += measured.nextNeedHardPoints;
}

function addStrategySurvival(
  survival: SimulationResult['survival'],
  name: StrategyName,
  measured: ProbeResult,
): void {
  survival[name] ??= { last: emptySurvival() };
  const entry = survival[name];
  addSurvival(entry.last, measured.survival);
  if (measured.survivalAtCompactions) {
    entry.atCompactions ??= emptySurvival();
    addSurvival(entry.atCompactions, measured.survivalAtCompactions);
  }
}

/** What the probes of one strategy's replay of one file measured. */
interface ProbeResult {
  survival: Survival;
  survivalAtCompactions?: Survival;
  nextNeed: NextNeed;
  nextNeedPoints: number;
  nextNeedAtHard: NextNeed;
  nextNeedHardPoints: number;
}

/**
 * Watches a replay's requests and measures survival: at the last request, of the history before
 * it; at each agent compaction point, in the first request after the boundary, of the history the
 * agent compacted. And next need at each request a layer of the strategy changed.
 */
function createSurvivalProbe(
  input: SimulationInput,
  needs: NextNeedProbe,
): {
  onRequest: (turn: number, request: SentRequest, layer: CompactionLayer) => void;
  result: () => ProbeResult;
} {
  const { messages } = input.transcript;
  const assistantIndexes: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'assistant') assistantIndexes.push(index);
  });
  // The first request after a boundary is the assistant turn after every assistant message before it.
  const pointTurns = new Map<number, number[]>();
  for (const compaction of input.compactions ?? []) {
    const turn = assistantIndexes.filter((index) => index < compaction.index).length;
    if (turn >= assistantIndexes.length) continue;
    pointTurns.set(turn, [...(pointTurns.get(turn) ?? []), compaction.index]);
  }
  let last: { turn: number; request: SentRequest } | undefined;
  let atCompactions: Survival | undefined;
  const nextNeed = emptyNextNeed();
  let nextNeedPoints = 0;
  const nextNeedAtHard = emptyNextNeed();
  let nextNeedHardPoints = 0;
  return {
    onRequest(turn, request, layer) {
      last = { turn, request };
      if (layer !== 'none') {
        const need = needs.measure(assistantIndexes[turn]!, request);
        nextNeedPoints++;
        addNextNeed(nextNeed, need);
        if (layer === 'hard') {
          nextNeedHardPoints++;
          addNextNeed(nextNeedAtHard, need);
        }
      }
      for (const index of pointTurns.get(turn) ?? []) {
        atCompactions ??= emptySurvival();
        addSurvival(atCompactions, measureSurvival(messages.slice(0, index), request));
      }
    },
    result() {
      const survival = last
        ? measureSurvival(messages.slice(0, assistantIndexes[last.turn]), last.request)
        : emptySurvival();
      return {
        survival,
        ...(atCompactions ? { survivalAtCompactions: atCompactions } : {}),
        nextNeed,
        nextNeedPoints,
        nextNeedAtHard,
        nextNeedHardPoints,
      };
    },
  };
}
