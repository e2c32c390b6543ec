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
  options: ReplayOptions,
): Promise<StrategyReplay> {
  const started = performance.now();
  const run = new ReplayRun(transcript, options);
  for (const [index, message] of transcript.messages.entries()) {
    if (message.role === 'assistant') await run.assistantTurn(message, index);
    else run.pending.push(message);
  }
  const summary = run.finish();
  summary.durationMs = performance.now() - started;
  return {
    strategy: options.strategy.name,
    thresholds: options.strategy.thresholds,
    summary,
    turns: run.turns,
  };
}

/** One replay in progress: the strategy's history, the messages since its last turn, the figures. */
class ReplayRun {
  readonly summary = emptySummary();
  readonly turns: ReplayTurn[] = [];
  /** Recorded user and tool messages since the previous assistant turn. */
  pending: Message[] = [];
  private history: Message[] = [];
  private previous: SentRequest | undefined;
  private assistantTurns = 0;
  private lastAssistantIndex = -1;
  /** Whether every request the strategy sent so far was the recorded one, unchanged. */
  private sentRecorded = true;
  private readonly times: number[];
  private readonly clock: ReplayClock;

  constructor(
    private readonly transcript: ReplayTranscript,
    private readonly options: ReplayOptions,
  ) {
    this.clock = options.clock ?? defaultReplayClock;
    const assistants = transcript.messages.filter((message) => message.role === 'assistant').length;
    this.times = requestTimes(assistants, transcript.timestamps, this.clock.turnSeconds);
  }

  /** The request before the recorded assistant `message`: through the strategy, then billed. */
  async assistantTurn(message: Message, index: number): Promise<void> {
    const { transcript, options, assistantTurns: turn } = this;
    const { system } = transcript;
    const { time, secondsSincePrevious, expired } = turnTiming(this.times, turn, this.clock);
    const input = [...this.history, ...this.pending];
    const step = await options.strategy.step(input, {
      ...definedFields({ system, usage: this.recordedUsage(), secondsSincePrevious }),
      time,
      cacheTtlSeconds: this.clock.cacheTtlSeconds,
    });
    this.pending = [];
    this.sentRecorded &&=
      step.messages.length === input.length && step.messages.every((sent, at) => sent === input[at]);
    const request: SentRequest = { system, messages: step.messages };
    options.onRequest?.(turn, request, step.layer);
    const prices = options.prices;
    const billed = billStep(request, step, {
      ...{ summaryCalls: options.summaryCalls, previous: this.previous, expired, tokens: options.tokens },
      ...{
        prices,
        summaryPrices: options.summaryPrices ?? prices,
        latency: options.latency ?? defaultLatencyModel,
      },
      turn,
      time,
      outputTokens: outputTokensOf(transcript.usage?.[turn], message, options.tokens),
    });
    this.turns.push(billed.turn);
    addTurn(this.summary, billed.turn, billed.summaries, step);
    this.previous = request;
    this.history = [...step.messages, message];
    this.assistantTurns++;
    this.lastAssistantIndex = index;
  }

  /**
   * The recorded usage of the previous request: it sizes this history only if the strategy sent
   * the recorded messages unchanged and the recording agent had not compacted them by then.
   */
  private recordedUsage(): ProviderUsage | undefined {
    const sentWhole = this.lastAssistantIndex < (this.transcript.compactedAt ?? Number.POSITIVE_INFINITY);
    if (this.assistantTurns === 0 || !sentWhole || !this.sentRecorded) return undefined;
    return this.transcript.usage?.[this.assistantTurns - 1];
  }

  /** The summary, with what the last request still shows of the calls answered before it. */
  finish(): StrategySummary {
    if (this.previous) {
      const calls = toolCallsOf(this.transcript.messages).filter(
        (call) => call.resultIndex < this.lastAssistantIndex,
      );
      addRetention(this.summary, measureRetention(calls, this.previous));
    }
    return this.summary;
  }
}

/** The fields of `fields` that are defined: a step's options take no `undefined` values. */
function definedFields<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** When a request goes out, how long after the previous one, and whether the cache expired between. */
function turnTiming(times: readonly number[], turn: number, clock: ReplayClock) {
  const time = times[turn]!;
  const secondsSincePrevious = turn === 0 ? undefined : time - times[turn - 1]!;
  const expired = secondsSincePrevious !== undefined && secondsSincePrevious > clock.cacheTtlSeconds;
  return { time, secondsSincePrevious, expired };
}

/** What billing one request needs besides the request and the step. */
interface BillContext {
  summaryCalls: ReplayOptions['summaryCalls'];
  previous: SentRequest | undefined;
  expired: boolean;
  tokens: RequestTokenCounter;
  prices: PriceTable;
  summaryPrices: PriceTable;
  latency: LatencyModel;
  turn: number;
  time: number;
  outputTokens: number;
}

/** The step's summary calls billed, and the request measured against the previous one. */
function billStep(request: SentRequest, step: StrategyStep, context: BillContext) {
  const { previous, expired, tokens, latency } = context;
  const summaries = billSummaryCalls(context.summaryCalls?.drain() ?? [], {
    previous,
    expired,
    tokens,
    prices: context.summaryPrices,
    latency,
  });
  const turn = measureTurn(request, {
    previous,
    summaries,
    step,
    turn: context.turn,
    time: context.time,
    expired,
    outputTokens: context.outputTokens,
    tokens,
    prices: context.prices,
  });
  return { turn, summaries };
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
