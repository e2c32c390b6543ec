/**
 * Replays a recorded agent transcript through a strategy, as an agent would have run it: before
 * each recorded assistant turn, the strategy's own history plus the recorded user and tool
 * messages since the last assistant turn go through the strategy, and the result is what is
 * "sent". Then the recorded assistant reply is appended to what was sent, and that carries forward
 * as the strategy's history, so compaction compounds as it would in a live agent. Messages after
 * the last assistant turn are never sent and are not replayed.
 *
 * Every request is measured with one token counter for all strategies, so they compare fairly; see
 * `prompt-cache.ts` for the caching and billing model and `key-facts.ts` for retention.
 *
 * Retention: for every tool call whose result the original transcript had before the last request,
 * the call counts as compacted away when the last request sent holds no `tool_result` for it with
 * the original text. `retention` is the fraction of the key facts of those calls still visible in
 * that last request, 1 when nothing was compacted away. It is measured on the last request, where
 * the loss has accumulated; per turn it would only be higher or equal for the same history.
 */

import {
  contentBlocks,
  type Message,
  type ProviderUsage,
  type SystemPrompt,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../core/conversation/types.js';
import type { CompactionLayer } from '../core/events.js';
import {
  extractKeyFacts,
  isFactVisible,
  type KeyFact,
  type KeyFactKind,
  requestText,
  toolResultText,
} from './key-facts.js';
import {
  billRequest,
  commonPrefix,
  type PriceTable,
  type RequestTokenCounter,
  type SentRequest,
} from './prompt-cache.js';
import type { ReplayStrategy, StrategyName } from './replay-strategies.js';

/** A transcript ready to replay. */
export interface ReplayTranscript {
  system?: SystemPrompt;
  messages: readonly Message[];
  /** Provider usage recorded for each assistant turn, in order, where the transcript has it. */
  usage?: readonly (ProviderUsage | undefined)[];
}

/** What happened on one request. */
export interface ReplayTurn {
  /** 0-based index of the recorded assistant turn. */
  turn: number;
  /** Input tokens of the request sent (system and messages). */
  inputTokens: number;
  layer: CompactionLayer;
  /** Tokens of the longest prefix shared with the previous request (cache reads). */
  reusedTokens: number;
  /** True when the request changed the previous request before its end. */
  prefixRewrite: boolean;
  cacheWriteTokens: number;
  billedInputTokens: number;
  outputTokens: number;
  cost: number;
}

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
  /** Dollars, input and output. */
  cost: number;
  /** Requests that changed the previous request before its end. */
  prefixRewrites: number;
  /** How often each layer changed something. */
  compactions: LayerCounts;
  /** Fraction (0–1) of the key facts of compacted-away tool calls still visible in the last request. */
  retention: number;
  /** Key facts of compacted-away tool calls. */
  facts: number;
  /** How many of them were visible. */
  factsVisible: number;
  /** Facts and visible facts per kind of fact. */
  factsByKind: Record<KeyFactKind, { facts: number; visible: number }>;
  /** Tool calls whose original result was no longer in the last request. */
  compactedCalls: number;
  /** Wall time of the replay in milliseconds. */
  durationMs: number;
}

/** One strategy's replay of one transcript. */
export interface StrategyReplay {
  strategy: StrategyName;
  thresholds: { mid: number; hard: number } | undefined;
  summary: StrategySummary;
  turns: ReplayTurn[];
}

/** Options of {@link replayTranscript}. */
export interface ReplayOptions {
  strategy: ReplayStrategy;
  /** Counts every request; share one between strategies so cached counts are reused. */
  tokens: RequestTokenCounter;
  prices: PriceTable;
}

interface ToolCall {
  toolUseId: string;
  /** Index of the message holding the result. */
  resultIndex: number;
  resultText: string;
  facts: KeyFact[];
}

/** Every answered tool call of the transcript with its key facts. */
export function toolCallsOf(messages: readonly Message[]): ToolCall[] {
  const uses = new Map<string, ToolUseBlock>();
  const calls: ToolCall[] = [];
  messages.forEach((message, index) => {
    for (const block of contentBlocks(message)) {
      if (block.type === 'tool_use') uses.set(String(block.id), block as ToolUseBlock);
      else if (block.type === 'tool_result') {
        const result = block as ToolResultBlock;
        const use = uses.get(result.tool_use_id);
        if (!use) continue;
        calls.push({
          toolUseId: result.tool_use_id,
          resultIndex: index,
          resultText: toolResultText(result),
          facts: extractKeyFacts(use, result),
        });
      }
    }
  });
  return calls;
}

/** Retention of the given calls in one request (see the module comment). */
export function measureRetention(
  calls: readonly ToolCall[],
  request: SentRequest,
): {
  compactedCalls: number;
  facts: number;
  factsVisible: number;
  factsByKind: Record<KeyFactKind, { facts: number; visible: number }>;
} {
  const present = new Map<string, string[]>();
  for (const message of request.messages) {
    for (const block of contentBlocks(message)) {
      if (block.type !== 'tool_result') continue;
      const result = block as ToolResultBlock;
      const texts = present.get(result.tool_use_id) ?? [];
      texts.push(toolResultText(result));
      present.set(result.tool_use_id, texts);
    }
  }
  let text: string | undefined;
  let compactedCalls = 0;
  let facts = 0;
  let factsVisible = 0;
  const factsByKind = emptyFactsByKind();
  for (const call of calls) {
    if (present.get(call.toolUseId)?.includes(call.resultText)) continue;
    compactedCalls++;
    text ??= requestText(request.system, request.messages);
    for (const fact of call.facts) {
      facts++;
      factsByKind[fact.kind].facts++;
      if (isFactVisible(fact, text)) {
        factsVisible++;
        factsByKind[fact.kind].visible++;
      }
    }
  }
  return { compactedCalls, facts, factsVisible, factsByKind };
}

function emptyFactsByKind(): Record<KeyFactKind, { facts: number; visible: number }> {
  return {
    argument: { facts: 0, visible: 0 },
    'exit-code': { facts: 0, visible: 0 },
    'error-line': { facts: 0, visible: 0 },
  };
}

function outputTokensOf(
  usage: ProviderUsage | undefined,
  reply: Message,
  tokens: RequestTokenCounter,
): number {
  if (typeof usage?.output_tokens === 'number') return usage.output_tokens;
  if (typeof usage?.completion_tokens === 'number') return usage.completion_tokens;
  return tokens.message(reply);
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
    prefixRewrites: 0,
    compactions: { micro: 0, mid: 0, hard: 0 },
    retention: 1,
    facts: 0,
    factsVisible: 0,
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
  total.prefixRewrites += summary.prefixRewrites;
  total.compactions.micro += summary.compactions.micro;
  total.compactions.mid += summary.compactions.mid;
  total.compactions.hard += summary.compactions.hard;
  total.facts += summary.facts;
  total.factsVisible += summary.factsVisible;
  for (const kind of Object.keys(total.factsByKind) as KeyFactKind[]) {
    total.factsByKind[kind].facts += summary.factsByKind[kind].facts;
    total.factsByKind[kind].visible += summary.factsByKind[kind].visible;
  }
  total.compactedCalls += summary.compactedCalls;
  total.durationMs += summary.durationMs;
  total.retention = total.facts === 0 ? 1 : total.factsVisible / total.facts;
}

/**
 * Replays one transcript through one strategy (see the module comment).
 *
 * @example
 * const tokens = createRequestTokenCounter(createTiktokenCounter());
 * const strategy = createReplayStrategy('seed', { summarizer, counter: tokens.counter });
 * const { summary } = await replayTranscript(transcript, { strategy, tokens, prices: defaultPriceTable });
 */
export async function replayTranscript(
  transcript: ReplayTranscript,
  { strategy, tokens, prices }: ReplayOptions,
): Promise<StrategyReplay> {
  const started = performance.now();
  const { system, messages } = transcript;
  const summary = emptySummary();
  const turns: ReplayTurn[] = [];
  let history: Message[] = [];
  let pending: Message[] = [];
  let previous: SentRequest | undefined;
  let assistantTurn = 0;
  let lastAssistantIndex = -1;
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'assistant') {
      pending.push(message);
      continue;
    }
    const usage = assistantTurn > 0 ? transcript.usage?.[assistantTurn - 1] : undefined;
    const step = await strategy.step([...history, ...pending], {
      ...(system === undefined ? {} : { system }),
      ...(usage === undefined ? {} : { usage }),
    });
    pending = [];
    const request: SentRequest = { system, messages: step.messages };
    const inputTokens = tokens.request(request);
    const prefix = commonPrefix(previous, request, tokens);
    const bill = billRequest(
      {
        inputTokens,
        reusedTokens: prefix.tokens,
        outputTokens: outputTokensOf(transcript.usage?.[assistantTurn], message, tokens),
      },
      prices,
    );
    turns.push({
      turn: assistantTurn,
      inputTokens,
      layer: step.layer,
      reusedTokens: bill.cacheReadTokens,
      prefixRewrite: !prefix.coversPrevious,
      cacheWriteTokens: bill.cacheWriteTokens,
      billedInputTokens: bill.billedInputTokens,
      outputTokens: bill.outputTokens,
      cost: bill.cost,
    });
    summary.turns++;
    summary.peakTokens = Math.max(summary.peakTokens, inputTokens);
    summary.inputTokens += inputTokens;
    summary.billedInputTokens += bill.billedInputTokens;
    summary.cacheReadTokens += bill.cacheReadTokens;
    summary.cacheWriteTokens += bill.cacheWriteTokens;
    summary.outputTokens += bill.outputTokens;
    summary.cost += bill.cost;
    if (!prefix.coversPrevious) summary.prefixRewrites++;
    if (step.layer !== 'none') summary.compactions[step.layer]++;
    previous = request;
    history = [...step.messages, message];
    assistantTurn++;
    lastAssistantIndex = index;
  }
  if (previous) {
    const calls = toolCallsOf(messages).filter((call) => call.resultIndex < lastAssistantIndex);
    const retention = measureRetention(calls, previous);
    summary.compactedCalls = retention.compactedCalls;
    summary.facts = retention.facts;
    summary.factsVisible = retention.factsVisible;
    summary.factsByKind = retention.factsByKind;
    summary.retention = retention.facts === 0 ? 1 : retention.factsVisible / retention.facts;
  }
  summary.durationMs = performance.now() - started;
  return { strategy: strategy.name, thresholds: strategy.thresholds, summary, turns };
}
