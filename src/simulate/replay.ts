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
 * Retention: every tool call whose result the original transcript had before the last request
 * counts. A call is compacted away when the last request sent holds no `tool_result` for it with the
 * original text; a call kept whole shows all its key facts. `retention` is the fraction of the key
 * facts of all those calls visible in that last request — one denominator for every strategy — and
 * `retentionOfCompacted` the fraction among the calls the strategy compacted away (1 when none).
 * It is measured on the last request, where the loss has accumulated.
 *
 * Summary calls are billed (see `billSummaryCalls`) and, unless the strategy ran them in the
 * background, the agent waits for them before sending its request. A request made more than the
 * cache lifetime after the previous one reads nothing from the cache.
 */

import type { CompactionLayer, Message, ProviderUsage, SystemPrompt } from 'agent-compact';
import type { PriceTable } from '../proxy/price-table.js';
import type { MeteredSummaryModel, SummaryCall } from './metered-summary-model.js';
import { billRequest, commonPrefix, type RequestTokenCounter, type SentRequest } from './prompt-cache.js';
import type { ReplayStrategy, StrategyName, StrategyStep } from './replay-strategy.js';
import { measureRetention, toolCallsOf } from './retention.js';
import { addRetention, emptySummary, type StrategySummary } from './strategy-summary.js';
import {
  callSeconds,
  defaultLatencyModel,
  defaultReplayClock,
  type LatencyModel,
  type ReplayClock,
  requestTimes,
} from './timing.js';

export { measureRetention, type RetentionMeasure, toolCallsOf } from './retention.js';
export { addSummary, emptySummary, type LayerCounts, type StrategySummary } from './strategy-summary.js';

/** A transcript ready to replay. */
export interface ReplayTranscript {
  system?: SystemPrompt;
  messages: readonly Message[];
  /** Provider usage recorded for each assistant turn, in order, where the transcript has it. */
  usage?: readonly (ProviderUsage | undefined)[];
  /**
   * Index of the first message after the recording agent's first own compaction: from there its
   * requests held its compacted context, not these messages, so their usage does not size them.
   */
  compactedAt?: number;
  /** When each assistant turn's request was made (ms since the epoch), where the transcript says. */
  timestamps?: readonly (number | undefined)[];
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
  /** Dollars of the request, plus the summary calls made before it. */
  cost: number;
  /** Seconds from the first request. */
  time: number;
  /** True when the previous request was more than the cache lifetime ago (nothing read from cache). */
  cacheExpired: boolean;
  /** Summary calls made before this request. */
  summaryCalls: number;
  /** Dollars of those summary calls (included in `cost`). */
  summaryCost: number;
  /** Seconds the agent waited for them before it could send the request. */
  blockedSeconds: number;
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
  /** Prices of summary calls. @default `prices` (the agent's model) */
  summaryPrices?: PriceTable;
  /** The summary model the strategy was given, metered, so its calls are billed. */
  summaryCalls?: Pick<MeteredSummaryModel, 'drain'>;
  /** Cache lifetime and turn duration. @default {@link defaultReplayClock} */
  clock?: ReplayClock;
  /** How long a summary call takes. @default {@link defaultLatencyModel} */
  latency?: LatencyModel;
  /**
   * Told each request as sent, with the strongest layer that changed it, e.g. to measure survival
   * at chosen turns or next need where the strategy compacted.
   */
  onRequest?: (turn: number, request: SentRequest, layer: CompactionLayer) => void;
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

/** What the summary calls before one request cost and how long the agent waited for them. */
interface SummaryBill {
  calls: number;
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  cost: number;
  seconds: number;
  /** The requests as sent, for the next request's cache reads. */
  requests: SentRequest[];
}

/**
 * Bills summary calls as requests of their own under the same caching model: the prefix a call
 * shares with the agent's previous request reads from the cache (unless it expired), the rest is
 * written; the summary is output. The agent waits for the calls one after another.
 */
function billSummaryCalls(
  calls: readonly SummaryCall[],
  {
    previous,
    expired,
    tokens,
    prices,
    latency,
  }: {
    previous: SentRequest | undefined;
    expired: boolean;
    tokens: RequestTokenCounter;
    prices: PriceTable;
    latency: LatencyModel;
  },
): SummaryBill {
  const bill: SummaryBill = {
    calls: 0,
    inputTokens: 0,
    cacheReadTokens: 0,
    outputTokens: 0,
    cost: 0,
    seconds: 0,
    requests: [],
  };
  for (const call of calls) {
    const request: SentRequest = { system: call.system, messages: call.messages };
    const inputTokens = tokens.request(request);
    const reusedTokens = expired ? 0 : commonPrefix(previous, request, tokens).tokens;
    const outputTokens = call.usage?.outputTokens ?? tokens.counter.countText(call.text);
    const turnBill = billRequest({ inputTokens, reusedTokens, outputTokens }, prices);
    bill.calls++;
    bill.inputTokens += inputTokens;
    bill.cacheReadTokens += turnBill.cacheReadTokens;
    bill.outputTokens += outputTokens;
    bill.cost += turnBill.cost;
    bill.seconds += callSeconds({ inputTokens, outputTokens }, latency);
    bill.requests.push(request);
  }
  return bill;
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
  {
    strategy,
    tokens,
    prices,
    summaryPrices = prices,
    summaryCalls,
    clock = defaultReplayClock,
    latency = defaultLatencyModel,
    onRequest,
  }: ReplayOptions,
): Promise<StrategyReplay> {
  const started = performance.now();
  const { system, messages } = transcript;
  const summary = emptySummary();
  const turns: ReplayTurn[] = [];
  const times = requestTimes(
    messages.filter((message) => message.role === 'assistant').length,
    transcript.timestamps,
    clock.turnSeconds,
  );
  let history: Message[] = [];
  let pending: Message[] = [];
  let previous: SentRequest | undefined;
  let assistantTurn = 0;
  let lastAssistantIndex = -1;
  // Whether every request the strategy sent so far was the recorded one, unchanged.
  let sentRecorded = true;
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'assistant') {
      pending.push(message);
      continue;
    }
    // The recorded usage of the previous request sizes this history only if the strategy sent the
    // recorded messages unchanged and the recording agent had not compacted them by then.
    const sentWhole = lastAssistantIndex < (transcript.compactedAt ?? Number.POSITIVE_INFINITY);
    const usage =
      assistantTurn > 0 && sentWhole && sentRecorded ? transcript.usage?.[assistantTurn - 1] : undefined;
    const time = times[assistantTurn]!;
    const secondsSincePrevious = assistantTurn === 0 ? undefined : time - times[assistantTurn - 1]!;
    const expired = secondsSincePrevious !== undefined && secondsSincePrevious > clock.cacheTtlSeconds;
    const input = [...history, ...pending];
    const step = await strategy.step(input, {
      ...(system === undefined ? {} : { system }),
      ...(usage === undefined ? {} : { usage }),
      time,
      ...(secondsSincePrevious === undefined ? {} : { secondsSincePrevious }),
      cacheTtlSeconds: clock.cacheTtlSeconds,
    });
    pending = [];
    sentRecorded &&=
      step.messages.length === input.length && step.messages.every((sent, at) => sent === input[at]);
    const summaries = billSummaryCalls(summaryCalls?.drain() ?? [], {
      previous,
      expired,
      tokens,
      prices: summaryPrices,
      latency,
    });
    const request: SentRequest = { system, messages: step.messages };
    onRequest?.(assistantTurn, request, step.layer);
    const turn = measureTurn(request, {
      previous,
      summaries,
      step,
      turn: assistantTurn,
      time,
      expired,
      outputTokens: outputTokensOf(transcript.usage?.[assistantTurn], message, tokens),
      tokens,
      prices,
    });
    turns.push(turn);
    addTurn(summary, turn, summaries, step);
    previous = request;
    history = [...step.messages, message];
    assistantTurn++;
    lastAssistantIndex = index;
  }
  if (previous) {
    const calls = toolCallsOf(messages).filter((call) => call.resultIndex < lastAssistantIndex);
    addRetention(summary, measureRetention(calls, previous));
  }
  summary.durationMs = performance.now() - started;
  return { strategy: strategy.name, thresholds: strategy.thresholds, summary, turns };
}

/** What a strategy's step returned, as far as the figures need it. */
type StepOutcome = Pick<StrategyStep, 'layer' | 'overflow' | 'blockedSeconds'>;

/** Measures and bills one request sent after the summary calls made before it. */
function measureTurn(
  request: SentRequest,
  {
    previous,
    summaries,
    step,
    turn,
    time,
    expired,
    outputTokens,
    tokens,
    prices,
  }: {
    previous: SentRequest | undefined;
    summaries: SummaryBill;
    step: StepOutcome;
    turn: number;
    time: number;
    expired: boolean;
    outputTokens: number;
    tokens: RequestTokenCounter;
    prices: PriceTable;
  },
): ReplayTurn {
  const inputTokens = tokens.request(request);
  const prefix = commonPrefix(previous, request, tokens);
  // The summary calls just made are in the cache too; the request reads the longest prefix any shares.
  const reusedTokens = expired
    ? 0
    : Math.max(
        prefix.tokens,
        ...summaries.requests.map((sent) => commonPrefix(sent, request, tokens).tokens),
      );
  const bill = billRequest({ inputTokens, reusedTokens, outputTokens }, prices);
  return {
    turn,
    inputTokens,
    layer: step.layer,
    reusedTokens: bill.cacheReadTokens,
    prefixRewrite: !prefix.coversPrevious,
    cacheWriteTokens: bill.cacheWriteTokens,
    billedInputTokens: bill.billedInputTokens,
    outputTokens: bill.outputTokens,
    cost: bill.cost + summaries.cost,
    time,
    cacheExpired: expired,
    summaryCalls: summaries.calls,
    summaryCost: summaries.cost,
    blockedSeconds: step.blockedSeconds ?? summaries.seconds,
  };
}

/** Adds one request (and the summary calls before it) to a transcript's figures. */
function addTurn(
  summary: StrategySummary,
  turn: ReplayTurn,
  summaries: SummaryBill,
  step: StepOutcome,
): void {
  summary.turns++;
  summary.peakTokens = Math.max(summary.peakTokens, turn.inputTokens);
  summary.inputTokens += turn.inputTokens;
  summary.billedInputTokens += turn.billedInputTokens;
  summary.cacheReadTokens += turn.reusedTokens;
  summary.cacheWriteTokens += turn.cacheWriteTokens;
  summary.outputTokens += turn.outputTokens;
  summary.cost += turn.cost;
  summary.summaryCalls += summaries.calls;
  summary.summaryInputTokens += summaries.inputTokens;
  summary.summaryCacheReadTokens += summaries.cacheReadTokens;
  summary.summaryOutputTokens += summaries.outputTokens;
  summary.summaryCost += summaries.cost;
  summary.blockedSeconds += turn.blockedSeconds;
  summary.longestWaitSeconds = Math.max(summary.longestWaitSeconds, turn.blockedSeconds);
  if (turn.cacheExpired) summary.cacheExpiries++;
  if (step.overflow) summary.contextOverflows++;
  if (turn.prefixRewrite) summary.prefixRewrites++;
  if (turn.prefixRewrite && turn.layer === 'mid') summary.midRewrites++;
  if (turn.layer !== 'none') summary.compactions[turn.layer]++;
  if (turn.layer !== 'none') summary.firstCompactionTurn ??= summary.turns;
}
