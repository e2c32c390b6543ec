/**
 * The strategies `simulate` replays side by side: `none` (send everything), `seed` (the port of the
 * seed's sketch) and `agent-compact` (this library's compactor).
 */
import { createCompactor } from '../core/compactor.js';
import type { CompactorOptions } from '../core/compactor-options.js';
import type { Message, ProviderUsage, SystemPrompt } from '../core/conversation/types.js';
import type { CompactionLayer } from '../core/events.js';
import type { SummaryModel } from '../core/summary/summary-model.js';
import type { TokenCounter } from '../core/tokens/token-counter.js';
import { createSeedStrategy } from './seed-strategy.js';

/** A strategy's name. */
export type StrategyName = 'none' | 'seed' | 'agent-compact';

/** Every strategy, in report order. */
export const strategyNames: readonly StrategyName[] = ['none', 'seed', 'agent-compact'];

/** What a strategy did to the history before one request. */
export interface StrategyStep {
  /** The messages to send. */
  messages: Message[];
  /** The strongest layer that changed something. */
  layer: CompactionLayer;
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
  step(
    messages: readonly Message[],
    context: { system?: SystemPrompt; usage?: ProviderUsage },
  ): Promise<StrategyStep>;
}

/** Options of {@link createReplayStrategy}. */
export interface ReplayStrategyOptions {
  /** Mid threshold for `seed` and `agent-compact`. Default: each strategy's own (50,000 for both). */
  mid?: number;
  /** Hard threshold for `seed` and `agent-compact`. Default: each strategy's own (80,000 for both). */
  hard?: number;
  /** Context window for `agent-compact` (its thresholds become fractions of it unless set). */
  window?: number;
  /** Writes hard summaries for `seed` and `agent-compact`. */
  summarizer: SummaryModel;
  /** The counter `agent-compact` counts with (the replay measures every strategy with the same one). */
  counter: TokenCounter;
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
      const compactorOptions: CompactorOptions = { counter: options.counter, summarizer: options.summarizer };
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
    default: {
      const unreachable: never = name;
      throw new Error(`unknown strategy ${String(unreachable)}`);
    }
  }
}
