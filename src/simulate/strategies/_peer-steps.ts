/**
 * Internal: the steps several replayed peer policies take alike, built from `_peer-tools.ts` —
 * clearing every tool result but the newest few, summarizing at the hard threshold while a recent
 * tail follows verbatim, and the two together as request-only edits. Each policy's own file keeps
 * its cited rules: how many results, which placeholder, which tail, which framing.
 */
import type { Message, SummaryModel, SystemPrompt, TokenCounter } from 'agent-compact';
import type { RequestTokenCounter, SentRequest } from '../prompt-cache.js';
import type { ReplayStrategy, StrategyName, StrategyStep } from '../replay-strategy.js';
import {
  clearToolResults,
  createOriginalResults,
  defaultPeerThresholds,
  idsToClearKeepingNewest,
  type PeerOptions,
  splitCurrentTurn,
  standInSummary,
  summaryMessage,
  toolResultPositions,
  triggerSize,
  withSummaryFirst,
} from './_peer-tools.js';

/** How a policy clears old tool results. */
export interface ClearingRule {
  /** Counts the results' tokens. */
  counter: TokenCounter;
  /** Tool results kept whole, the newest. */
  keep: number;
  /** What a cleared result says instead. */
  placeholder: string;
}

/**
 * The history with every tool result but the newest `keep` replaced by `placeholder`, and the ids
 * of the results it cleared now (results already cleared are not counted again).
 */
export function clearAllButNewest(
  messages: readonly Message[],
  { counter, keep, placeholder }: ClearingRule,
): { messages: Message[]; clearedIds: Set<string> } {
  const positions = toolResultPositions(messages, counter, [placeholder]);
  const clearedIds = idsToClearKeepingNewest(positions, keep);
  return { messages: clearToolResults(messages, clearedIds, placeholder), clearedIds };
}

/** How a policy summarizes when the request passes its hard threshold. */
export interface HardSummaryRule {
  hard: number;
  tokens: RequestTokenCounter;
  /** The size compared with `hard` (the replay's count when absent). */
  size?: ((request: SentRequest) => number) | undefined;
  summarizer: SummaryModel;
  /** The words the policy puts before its summary. */
  framing: string;
  /** Index of the first message kept verbatim after the summary. */
  keepFrom(messages: readonly Message[]): number;
}

/**
 * A policy's summary at hard: when the request passes `hard`, the messages before `keepFrom`
 * replaced by one stand-in summary, the rest following verbatim; `undefined` when the request
 * fits or nothing comes before the tail.
 */
export function createHardSummary({
  hard,
  tokens,
  size,
  summarizer,
  framing,
  keepFrom,
}: HardSummaryRule): (
  messages: readonly Message[],
  system: SystemPrompt | undefined,
) => Promise<Message[] | undefined> {
  return async (messages, system) => {
    if (triggerSize({ tokens, size })({ system, messages }) <= hard) return undefined;
    const start = keepFrom(messages);
    if (start <= 0) return undefined;
    const summary = await standInSummary(summarizer, system, messages.slice(0, start));
    return withSummaryFirst(summaryMessage(framing, summary), messages.slice(start));
  };
}

/** What a summarize-then-clear policy states for itself. */
export interface SummarizeThenClearRule {
  /** The words the policy puts before its summary. */
  framing: string;
  /** Index of the first message kept verbatim after the summary. */
  keepFrom(messages: readonly Message[]): number;
  /** Tool results kept whole, the newest. */
  keep: number;
  /** What a cleared result says instead. */
  placeholder: string;
}

/**
 * A policy that summarizes at hard and clears old tool results at mid on each request only
 * (Anthropic context editing with compaction; LangChain's summarization and context-editing
 * middleware). The client's history keeps the originals, so each request restores them (what was
 * sent last time, with the edits undone), summarizes when over hard, then — when still over mid —
 * clears every tool result but the newest `keep`. Clearing counts as `micro` only when a result is
 * cleared for the first time, and only when no summary was made.
 */
export function createSummarizeThenClearStrategy(
  name: StrategyName,
  {
    hard = defaultPeerThresholds.hard,
    mid = defaultPeerThresholds.mid,
    summarizer,
    tokens,
    size,
  }: PeerOptions,
  { framing, keepFrom, keep, placeholder }: SummarizeThenClearRule,
): ReplayStrategy {
  const { counter } = tokens;
  const summarizeOverHard = createHardSummary({ hard, tokens, size, summarizer, framing, keepFrom });
  const sizeOf = triggerSize({ tokens, size });
  const originals = createOriginalResults(placeholder);
  // Edits are redone on every request; the layer fires only when a result is cleared for the first time.
  let cleared = new Set<string>();
  return {
    name,
    thresholds: { mid, hard },
    async step(input, { system }): Promise<StrategyStep> {
      let messages: Message[] = originals.restore(input);
      let layer: StrategyStep['layer'] = 'none';
      const summarized = await summarizeOverHard(messages, system);
      if (summarized) {
        messages = summarized;
        layer = 'hard';
      }
      if (sizeOf({ system, messages }) > mid) {
        const edited = clearAllButNewest(messages, { counter, keep, placeholder });
        if ([...edited.clearedIds].some((id) => !cleared.has(id)) && layer === 'none') layer = 'micro';
        messages = edited.messages;
        cleared = edited.clearedIds;
      }
      return { messages, layer };
    },
  };
}

/** Where the turn in progress starts: the tail most policies keep after a summary. */
export function currentTurnStart(messages: readonly Message[]): number {
  return splitCurrentTurn(messages).before.length;
}
