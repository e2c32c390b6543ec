/** One strategy's figures for a transcript, and how they add up over many. */
import type { KeyFactKind } from './key-facts.js';
import { emptyFactsByKind, type RetentionMeasure } from './retention.js';

/** Counts of compactions per layer. */
export interface LayerCounts {
  micro: number;
  mid: number;
  hard: number;
}

/** One strategy's figures for one transcript (or a total over many). */
export interface StrategySummary {
  /** Requests replayed. */
  turns: number;
  /** The largest request, in input tokens. */
  peakTokens: number;
  /** Input tokens sent over all requests. */
  inputTokens: number;
  /** Input billed in base-price token equivalents (cache reads × 0.1 + writes × 1.25 by default). */
  billedInputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  /** Dollars, input and output, summary calls included. */
  cost: number;
  /** Model calls made to write summaries (hard, and mid with a model). */
  summaryCalls: number;
  /** Input tokens sent to those calls. */
  summaryInputTokens: number;
  /** Input tokens of those calls read from the agent's cached prefix. */
  summaryCacheReadTokens: number;
  /** Output tokens they wrote (the summaries). */
  summaryOutputTokens: number;
  /** Dollars of those calls (part of `cost`). */
  summaryCost: number;
  /** Seconds the agent waited for summary calls, in total. */
  blockedSeconds: number;
  /** The longest single wait for summary calls before one request, seconds. */
  longestWaitSeconds: number;
  /** Requests made after the cache lifetime had passed (they read nothing from the cache). */
  cacheExpiries: number;
  /** Requests the strategy refused to compact (`CONTEXT_OVERFLOW`) and sent as they were. */
  contextOverflows: number;
  /** Requests that changed the previous request before its end. */
  prefixRewrites: number;
  /** Of those, the requests where mid condensed the history (its cache rewrites). */
  midRewrites: number;
  /** How often each layer changed something. */
  compactions: LayerCounts;
  /**
   * The request (1-based) at which a layer first changed something, absent when none did: how
   * close to the transcript's end its first cache rewrite came. Not summed over transcripts.
   */
  firstCompactionTurn?: number;
  /**
   * Fraction (0–1) of the key facts of every tool call answered before the last request that are
   * visible in the last request (a call kept whole shows all its facts): one denominator for every
   * strategy.
   */
  retention: number;
  /** Key facts of every tool call answered before the last request. */
  facts: number;
  /** How many of them were visible in the last request. */
  factsVisible: number;
  /** Fraction (0–1) of the key facts of the calls this strategy compacted away still visible. */
  retentionOfCompacted: number;
  /** Key facts of compacted-away tool calls. */
  compactedFacts: number;
  /** How many of them were visible. */
  compactedFactsVisible: number;
  /** Facts and visible facts of compacted-away calls per kind of fact. */
  factsByKind: Record<KeyFactKind, { facts: number; visible: number }>;
  /** Tool calls whose original result was no longer in the last request. */
  compactedCalls: number;
  /** Wall time of the replay in milliseconds. */
  durationMs: number;
}

/** An empty summary, the start of a sum. */
export function emptySummary(): StrategySummary {
  return {
    turns: 0,
    peakTokens: 0,
    inputTokens: 0,
    billedInputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    cost: 0,
    summaryCalls: 0,
    summaryInputTokens: 0,
    summaryCacheReadTokens: 0,
    summaryOutputTokens: 0,
    summaryCost: 0,
    blockedSeconds: 0,
    longestWaitSeconds: 0,
    cacheExpiries: 0,
    contextOverflows: 0,
    prefixRewrites: 0,
    midRewrites: 0,
    compactions: { micro: 0, mid: 0, hard: 0 },
    retention: 1,
    facts: 0,
    factsVisible: 0,
    retentionOfCompacted: 1,
    compactedFacts: 0,
    compactedFactsVisible: 0,
    factsByKind: emptyFactsByKind(),
    compactedCalls: 0,
    durationMs: 0,
  };
}

/** Adds one summary into a running total (peak is the maximum; retention is pooled over facts). */
export function addSummary(total: StrategySummary, summary: StrategySummary): void {
  total.turns += summary.turns;
  total.peakTokens = Math.max(total.peakTokens, summary.peakTokens);
  total.inputTokens += summary.inputTokens;
  total.billedInputTokens += summary.billedInputTokens;
  total.cacheReadTokens += summary.cacheReadTokens;
  total.cacheWriteTokens += summary.cacheWriteTokens;
  total.outputTokens += summary.outputTokens;
  total.cost += summary.cost;
  total.summaryCalls += summary.summaryCalls;
  total.summaryInputTokens += summary.summaryInputTokens;
  total.summaryCacheReadTokens += summary.summaryCacheReadTokens;
  total.summaryOutputTokens += summary.summaryOutputTokens;
  total.summaryCost += summary.summaryCost;
  total.blockedSeconds += summary.blockedSeconds;
  total.longestWaitSeconds = Math.max(total.longestWaitSeconds, summary.longestWaitSeconds);
  total.cacheExpiries += summary.cacheExpiries;
  total.contextOverflows += summary.contextOverflows;
  total.prefixRewrites += summary.prefixRewrites;
  total.midRewrites += summary.midRewrites;
  total.compactions.micro += summary.compactions.micro;
  total.compactions.mid += summary.compactions.mid;
  total.compactions.hard += summary.compactions.hard;
  total.facts += summary.facts;
  total.factsVisible += summary.factsVisible;
  total.compactedFacts += summary.compactedFacts;
  total.compactedFactsVisible += summary.compactedFactsVisible;
  for (const kind of Object.keys(total.factsByKind) as KeyFactKind[]) {
    total.factsByKind[kind].facts += summary.factsByKind[kind].facts;
    total.factsByKind[kind].visible += summary.factsByKind[kind].visible;
  }
  total.compactedCalls += summary.compactedCalls;
  total.durationMs += summary.durationMs;
  total.retention = total.facts === 0 ? 1 : total.factsVisible / total.facts;
  total.retentionOfCompacted =
    total.compactedFacts === 0 ? 1 : total.compactedFactsVisible / total.compactedFacts;
}

/** Records the retention measured on the last request (see the module comment). */
export function addRetention(summary: StrategySummary, retention: RetentionMeasure): void {
  summary.compactedCalls = retention.compactedCalls;
  summary.facts = retention.facts;
  summary.factsVisible = retention.factsVisible;
  summary.compactedFacts = retention.compactedFacts;
  summary.compactedFactsVisible = retention.compactedFactsVisible;
  summary.factsByKind = retention.factsByKind;
  summary.retention = retention.facts === 0 ? 1 : retention.factsVisible / retention.facts;
  summary.retentionOfCompacted =
    retention.compactedFacts === 0 ? 1 : retention.compactedFactsVisible / retention.compactedFacts;
}
