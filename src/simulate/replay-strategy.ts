/**
 * The types of a strategy `simulate` replays: what it is given, what it returns, its options.
 * A type file, so each strategy in `strategies/` imports them without the registry that lists it.
 */
import type {
  CompactionLayer,
  CompactorOptions,
  Message,
  ProviderUsage,
  SummaryModel,
  SystemPrompt,
  TokenCounter,
} from 'agent-compact';
import type { AgentCompaction } from 'agent-compact/importers';
import type { RequestTokenCounter } from './prompt-cache.js';
import type { LatencyModel } from './timing.js';

/** A peer policy's name. */
export type PeerName = 'claude-code' | 'codex' | 'opencode' | 'anthropic-context-editing' | 'langchain';

/** A strategy's name. */
export type StrategyName = 'none' | 'seed' | 'agent-compact' | 'actual' | PeerName;

/** What a strategy did to the history before one request. */
export interface StrategyStep {
  /** The messages to send. */
  messages: Message[];
  /** The strongest layer that changed something. */
  layer: CompactionLayer;
  /**
   * Seconds the agent waited for summary calls before this request, when the strategy keeps its own
   * clock (agent-compact, whose summaries may run in the background). Otherwise the replay adds up
   * the durations of the step's summary calls.
   */
  blockedSeconds?: number;
  /** True when the strategy refused to compact (`CONTEXT_OVERFLOW`) and the history went as it was. */
  overflow?: boolean;
}

/** What the replay tells a strategy about one request besides the messages. */
export interface StepContext {
  system?: SystemPrompt;
  /** Provider usage of the previous request, while the history is still the recorded one. */
  usage?: ProviderUsage;
  /** Seconds since the first request. */
  time: number;
  /** Seconds since the previous request; absent on the first. */
  secondsSincePrevious?: number;
  /** The prompt cache's lifetime in seconds. */
  cacheTtlSeconds: number;
}

/** One strategy as the replay drives it: a fresh instance per transcript. */
export interface ReplayStrategy {
  readonly name: StrategyName;
  /** The mid and hard thresholds in force, for the report; none for `none`. */
  readonly thresholds: { readonly mid: number; readonly hard: number } | undefined;
  /**
   * Compacts the history before one request. `usage` is the provider's usage recorded for the
   * previous request of the original transcript, passed only while every request the strategy sent
   * was the recorded one unchanged (the replay checks; see `replayTranscript`).
   */
  step(messages: readonly Message[], context: StepContext): Promise<StrategyStep>;
}

/** Options of {@link createReplayStrategy}. */
export interface ReplayStrategyOptions {
  /** Mid threshold of every strategy (the peers clear here). Default: each strategy's own (50,000). */
  mid?: number;
  /** Hard threshold of every strategy (the peers summarize here). Default: each strategy's own (80,000). */
  hard?: number;
  /** Context window for `agent-compact` (its thresholds become fractions of it unless set). */
  window?: number;
  /** Writes hard summaries for `seed` and `agent-compact`. */
  summarizer: SummaryModel;
  /** The counter `agent-compact` counts with (the replay measures every strategy with the same one). */
  counter: TokenCounter;
  /**
   * The replay's request counter over `counter`, so the strategies count with the counts the replay
   * caches: `agent-compact` times its summary calls with it, the peers measure the history with it.
   * @default one over `counter`
   */
  tokens?: RequestTokenCounter;
  /** More options of `agent-compact`'s compactor (layer settings), to replay your own settings. */
  agentCompact?: Omit<CompactorOptions, 'counter' | 'summarizer' | 'thresholds' | 'contextWindow'>;
  /** The replay's prompt-cache lifetime, for `agent-compact`'s cold-cache compaction. */
  cacheTtlSeconds?: number;
  /** How long summary calls take, for `agent-compact`'s clock. @default {@link defaultLatencyModel} */
  latency?: LatencyModel;
  /** The recording agent's own compactions, which `actual` replays. @default none */
  compactions?: readonly AgentCompaction[];
}
