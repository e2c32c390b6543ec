/**
 * The strategies `simulate` replays side by side: `none` (send everything), `seed` (the port of the
 * seed's sketch), `agent-compact` (this library's compactor) and the peers — the policies of
 * Claude Code, Codex, opencode, Anthropic's context editing and LangChain's middleware, each in
 * `strategies/` with its sources cited.
 */
import { createCompactor } from '../core/compactor.js';
import type { CompactorOptions } from '../core/compactor-options.js';
import type { Message, ProviderUsage, SystemPrompt } from '../core/conversation/types.js';
import type { CompactionLayer } from '../core/events.js';
import type { SummaryModel } from '../core/summary/summary-model.js';
import type { TokenCounter } from '../core/tokens/token-counter.js';
import { createSeedStrategy } from './seed-strategy.js';
import type { PeerOptions } from './strategies/_peer-tools.js';
import { createAnthropicContextEditingStrategy } from './strategies/anthropic-context-editing.js';
import { createClaudeCodeStrategy } from './strategies/claude-code.js';
import { createCodexStrategy } from './strategies/codex.js';
import { createLangchainStrategy } from './strategies/langchain.js';
import { createOpencodeStrategy } from './strategies/opencode.js';

/** A peer policy's name. */
export type PeerName = 'claude-code' | 'codex' | 'opencode' | 'anthropic-context-editing' | 'langchain';

/** A strategy's name. */
export type StrategyName = 'none' | 'seed' | 'agent-compact' | PeerName;

/** The peers, in report order. */
export const peerNames: readonly PeerName[] = [
  'claude-code',
  'codex',
  'opencode',
  'anthropic-context-editing',
  'langchain',
];

/** Every strategy, in report order. */
export const strategyNames: readonly StrategyName[] = ['none', 'seed', 'agent-compact', ...peerNames];

/** What a strategy did to the history before one request. */
export interface StrategyStep {
  /** The messages to send. */
  messages: Message[];
  /** The strongest layer that changed something. */
  layer: CompactionLayer;
  /** True when the summary calls of this step ran in the background (the agent did not wait). */
  background?: boolean;
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
   * previous request of the original transcript, passed only while the strategy's history is still
   * the original one (see {@link createReplayStrategy}).
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
  /** More options of `agent-compact`'s compactor (layer settings), to replay your own settings. */
  agentCompact?: Omit<CompactorOptions, 'counter' | 'summarizer' | 'thresholds' | 'contextWindow'>;
}

/**
 * A fresh strategy for one transcript.
 *
 * Recorded provider usage belongs to the uncompacted history, so `agent-compact` is anchored to it
 * only while its history is still byte-for-byte the recorded one (no layer has changed anything
 * yet); after the first change it counts on its own. `seed` never reads usage (the sketch does
 * not), and `none` needs no counting at all.
 */
export function createReplayStrategy(name: StrategyName, options: ReplayStrategyOptions): ReplayStrategy {
  switch (name) {
    case 'none':
      return {
        name,
        thresholds: undefined,
        async step(messages) {
          return { messages: [...messages], layer: 'none' };
        },
      };
    case 'seed': {
      const seed = createSeedStrategy({
        summarizer: options.summarizer,
        ...(options.mid === undefined ? {} : { midThreshold: options.mid }),
        ...(options.hard === undefined ? {} : { hardThreshold: options.hard }),
      });
      return {
        name,
        thresholds: seed.thresholds,
        async step(messages, { system }) {
          const { messages: compacted, layer } = await seed.maybeCompact(
            messages,
            system === undefined ? {} : { system },
          );
          return { messages: compacted, layer };
        },
      };
    }
    case 'agent-compact': {
      const compactorOptions: CompactorOptions = {
        ...options.agentCompact,
        counter: options.counter,
        summarizer: options.summarizer,
      };
      if (options.mid !== undefined || options.hard !== undefined) {
        compactorOptions.thresholds = {
          ...(options.mid === undefined ? {} : { mid: options.mid }),
          ...(options.hard === undefined ? {} : { hard: options.hard }),
        };
      }
      if (options.window !== undefined) compactorOptions.contextWindow = options.window;
      const compactor = createCompactor(compactorOptions);
      let pristine = true;
      return {
        name,
        thresholds: compactor.thresholds,
        async step(messages, { system, usage }) {
          const result = await compactor.maybeCompact(messages, {
            ...(system === undefined ? {} : { system }),
            ...(pristine && usage !== undefined ? { usage } : {}),
          });
          if (result.layer !== 'none' || result.messages !== messages) pristine = false;
          return { messages: [...result.messages], layer: result.layer };
        },
      };
    }
    case 'claude-code':
      return createClaudeCodeStrategy(peerOptions(options));
    case 'codex':
      return createCodexStrategy(peerOptions(options));
    case 'opencode':
      return createOpencodeStrategy(peerOptions(options));
    case 'anthropic-context-editing':
      return createAnthropicContextEditingStrategy(peerOptions(options));
    case 'langchain':
      return createLangchainStrategy(peerOptions(options));
    default: {
      const unreachable: never = name;
      throw new Error(`unknown strategy ${String(unreachable)}`);
    }
  }
}

function peerOptions({ mid, hard, summarizer, counter }: ReplayStrategyOptions): PeerOptions {
  return {
    summarizer,
    counter,
    ...(mid === undefined ? {} : { mid }),
    ...(hard === undefined ? {} : { hard }),
  };
}
