import { withinDeadline } from '../_internal/deadline.js';
import { errorLine, escapeReservedTags, sliceHead } from '../_internal/text.js';
import type { CompactionEvent } from '../events.js';
import { CompactError } from '../model/errors.js';
import type { ContentBlock, Message, SystemPrompt, TextBlock } from '../model/messages.js';
import {
  BLOCK_OVERHEAD_TOKENS,
  countMessagesTokens,
  countMessageTokens,
  countSystemTokens,
  MESSAGE_OVERHEAD_TOKENS,
} from '../tokens/message-tokens.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { extractiveSummary } from './extractive-summary.js';
import { groundTruthBeside } from './ground-truth.js';
import { readableHistory } from './readable-history.js';
import { renderMessage } from './render-message.js';
import { summaryInstructions, summaryOpen } from './summary-format.js';
import type { SummaryModel, SummaryResult } from './summary-model.js';
import { checkedSummaryUsage } from './summary-usage.js';

/** Room left in every summary request for what local counts miss (the provider's framing, counting error). */
const REQUEST_MARGIN_TOKENS = 500;
/** A chunk smaller than this is not worth a request: the window is too small for the fixed parts. */
const MIN_CHUNK_TOKENS = 1000;
/** Fewest characters per token of any text (dense code and CJK), to cut an oversized message once. */
const MIN_CHARACTERS_PER_TOKEN = 2;
const CHUNK_HEADER = 'Transcript of the next part of the conversation:\n\n';
const CUT_NOTE = '\n[… cut for the summary; the whole message is archived]';

/** Resolved options of the summary calls. */
export interface SummarySettings {
  summarizer: SummaryModel;
  maxSummaryTokens: number;
  maxAttempts: number;
  retryDelayMs: number;
  timeoutMs: number;
}

/** Everything a summary needs besides the history. */
export interface WriteSummaryOptions {
  settings: SummarySettings;
  counter: TokenCounter;
  system?: SystemPrompt;
  focus?: string;
  signal?: AbortSignal;
  /** The rendered session ledger, given to the model as ground truth. */
  ledger?: string;
  /** Whether the history's placeholders name recall ids (the instructions ask to keep them). @default true */
  recall?: boolean;
}

/** A summary and the events its calls produced (for the pipeline to emit). */
export interface WrittenSummary {
  text: string;
  events: CompactionEvent[];
}

/**
 * Writes the summary of `dropped`: the whole history in one request when it fits the summary
 * model's window (its system prompt and the instructions included), otherwise chunk by chunk, each
 * merged into the last. Retries with backoff, rejects empty or oversized answers, and falls back to
 * the extractive summary when every try failed. Throws only `ABORTED`.
 */
export async function writeSummary(
  dropped: readonly Message[],
  options: WriteSummaryOptions,
): Promise<WrittenSummary> {
  const { settings, counter, signal } = options;
  const events: CompactionEvent[] = [];
  const earlier = dropped.map(firstText).filter((text) => text.startsWith(summaryOpen));
  const mergesPrevious = earlier.length > 0;
  const write = (ledger: string | undefined) =>
    summaryInstructions({
      mergesPrevious,
      ...(options.recall === false ? { recall: false } : {}),
      ...(options.focus ? { focus: options.focus } : {}),
      ...(ledger ? { ledger } : {}),
    });
  let groundTruth = options.ledger;
  let instructions = write(groundTruth);
  let budget = requestBudget(options, instructions);
  // The ledger goes out beside the summary anyway: in a small window it leaves room for the history.
  const chunkRoom = budget - settings.maxSummaryTokens - counter.countText(CHUNK_HEADER);
  let inOneRequest = !tokensOver(dropped, budget, counter);
  if (groundTruth && !inOneRequest && chunkRoom < MIN_CHUNK_TOKENS) {
    groundTruth = undefined;
    instructions = write(groundTruth);
    budget = requestBudget(options, instructions);
    inOneRequest = !tokensOver(dropped, budget, counter);
  }
  // In one request the model reads the earlier summary's record in the history itself.
  if (groundTruth && inOneRequest && mergesPrevious)
    instructions = write(groundTruthBeside(groundTruth, earlier));

  let lastError: unknown;
  let attempts = 0;
  for (let attempt = 1; attempt <= settings.maxAttempts; attempt++) {
    attempts = attempt;
    try {
      const text = inOneRequest
        ? await callModel(withInstructions(dropped, instructions), options, events)
        : await summarizeInChunks(dropped, budget, instructions, options, events);
      return { text: acceptSummary(text, dropped, options), events };
    } catch (error) {
      if (signal?.aborted)
        throw new CompactError('compaction was aborted', { code: 'ABORTED', cause: error });
      lastError = error;
      events.push({ type: 'summary-error', attempt, error });
      if (!worthRetrying(error, settings.summarizer)) break;
      if (attempt < settings.maxAttempts) await sleep(settings.retryDelayMs * 2 ** (attempt - 1), signal);
    }
  }
  events.push({
    type: 'fallback-used',
    reason: `summary model ${settings.summarizer.provider}:${settings.summarizer.modelId} failed after ${attempts} attempt(s): ${errorLine(lastError)}`,
  });
  // The agent's own model may have been given the history as sent; the fallback reads what is readable.
  const text = extractiveSummary(readableHistory(dropped), settings.maxSummaryTokens, options.focus, {
    ledger: options.ledger,
  });
  return { text, events };
}

/**
 * Whether `messages` hold more than `limit` tokens, counted only as far as that takes: a history
 * of 80,000 tokens against a 2,000-token summary stops after a few messages, and against the
 * unlimited request of a summarizer without a window it is not counted at all.
 */
function tokensOver(messages: readonly Message[], limit: number, counter: TokenCounter): boolean {
  if (limit === Number.POSITIVE_INFINITY) return false;
  let tokens = 0;
  for (const message of messages) {
    tokens += countMessageTokens(message, counter);
    if (tokens > limit) return true;
  }
  return false;
}

/**
 * Tokens of history one request may carry: the model's window less the answer, the system prompt
 * sent with every request, the instructions and a margin. Infinite when the window is unknown.
 */
function requestBudget(options: WriteSummaryOptions, instructions: string): number {
  const window = options.settings.summarizer.contextWindow;
  if (window === undefined) return Number.POSITIVE_INFINITY;
  const fixed =
    countSystemTokens(options.system, options.counter) +
    options.counter.countText(instructions) +
    MESSAGE_OVERHEAD_TOKENS +
    BLOCK_OVERHEAD_TOKENS +
    REQUEST_MARGIN_TOKENS;
  return window - options.settings.maxSummaryTokens - fixed;
}

/**
 * Whether another try can help. An adapter's `SUMMARY_FAILED` is its verdict after its own retries
 * (or a request the provider rejects), and the extractive model answers the same every time; an
 * answer this module rejected (empty, too long) may come out better on another try.
 */
function worthRetrying(error: unknown, summarizer: SummaryModel): boolean {
  if (summarizer.provider === 'extractive') return false;
  if (CompactError.isInstance(error) && error.code === 'SUMMARY_FAILED') return rejectedAnswers.has(error);
  return true;
}

const rejectedAnswers = new WeakSet<object>();

function rejectAnswer(message: string): CompactError {
  const error = new CompactError(message, { code: 'SUMMARY_FAILED' });
  rejectedAnswers.add(error);
  return error;
}

/** Rejects summaries that are empty or do not shrink the context; escapes forged tags. */
function acceptSummary(text: string, dropped: readonly Message[], options: WriteSummaryOptions): string {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (trimmed === '') throw rejectAnswer('the summary model returned an empty summary');
  const tokens = options.counter.countText(trimmed);
  if (!tokensOver(dropped, tokens, options.counter)) {
    const historyTokens = countMessagesTokens(dropped, options.counter);
    throw rejectAnswer(
      `the summary (${tokens} tokens) is not smaller than the history it replaces (${historyTokens})`,
    );
  }
  if (tokens > options.settings.maxSummaryTokens * 2) {
    throw rejectAnswer(`the summary (${tokens} tokens) exceeds twice maxSummaryTokens`);
  }
  return escapeReservedTags(trimmed);
}

async function callModel(
  messages: Message[],
  options: WriteSummaryOptions,
  events: CompactionEvent[],
): Promise<string> {
  const { settings } = options;
  const request = {
    ...(options.system === undefined ? {} : { system: options.system }),
    messages,
    maxOutputTokens: settings.maxSummaryTokens,
    ...(options.focus ? { focus: options.focus } : {}),
    ...(options.ledger ? { ledger: options.ledger } : {}),
  };
  // A summarizer written without the types (or a mock) may answer null: no text, not a TypeError.
  const result: SummaryResult | null | undefined = await withinDeadline(
    (signal) => settings.summarizer.summarize(request, { signal }),
    settings.timeoutMs,
    options.signal,
  );
  const usage = checkedSummaryUsage(result?.usage);
  if (usage) events.push({ type: 'summary-usage', usage, modelId: settings.summarizer.modelId });
  if (typeof result?.text !== 'string') throw rejectAnswer('the summary model returned no text');
  return result.text;
}

/**
 * The history followed by the instructions, as a valid conversation ending with a user message.
 * The history is sent unchanged so a provider can reuse its cached prefix.
 */
function withInstructions(history: readonly Message[], instructions: string): Message[] {
  const instructionBlock: TextBlock = { type: 'text', text: instructions };
  const last = history[history.length - 1];
  if (last?.role === 'user') {
    const content: ContentBlock[] =
      typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    return [...history.slice(0, -1), { role: 'user', content: [...content, instructionBlock] }];
  }
  return [...history, { role: 'user', content: [instructionBlock] }];
}

/**
 * Summarizes a history too large for one request, chunk by chunk, each merged into the summary so
 * far. Every request — previous summary, chunk, instructions, system prompt — fits `budget`.
 */
async function summarizeInChunks(
  history: readonly Message[],
  budget: number,
  instructions: string,
  options: WriteSummaryOptions,
  events: CompactionEvent[],
): Promise<string> {
  const { counter } = options;
  // The summary carried into the next request is at most one answer long.
  const chunkBudget = budget - options.settings.maxSummaryTokens - counter.countText(CHUNK_HEADER);
  if (chunkBudget < MIN_CHUNK_TOKENS) {
    throw new CompactError(
      `the summary model's window (${options.settings.summarizer.contextWindow} tokens) leaves ${chunkBudget} tokens per chunk after its system prompt, instructions and answer`,
      { code: 'SUMMARY_FAILED' },
    );
  }
  let summary = '';
  let chunk: string[] = [];
  let chunkTokens = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    const previous = summary ? `<context_summary>\n${summary}\n</context_summary>\n\n` : '';
    const text = `${previous}${CHUNK_HEADER}${chunk.join('\n\n')}`;
    summary = await callModel(
      withInstructions([{ role: 'user', content: text }], instructions),
      options,
      events,
    );
    chunk = [];
    chunkTokens = 0;
  };
  for (const message of history) {
    const rendered = fitRendered(renderMessage(message), chunkBudget, counter);
    const tokens = counter.countText(rendered) + 1;
    if (chunkTokens + tokens > chunkBudget) await flush();
    chunk.push(rendered);
    chunkTokens += tokens;
  }
  await flush();
  return summary;
}

/** A rendered message cut to its head when it alone is larger than a chunk (it is archived whole). */
function fitRendered(rendered: string, maxTokens: number, counter: TokenCounter): string {
  if (counter.countText(rendered) <= maxTokens) return rendered;
  let characters = maxTokens * MIN_CHARACTERS_PER_TOKEN;
  let cut = `${sliceHead(rendered, characters)}${CUT_NOTE}`;
  while (counter.countText(cut) > maxTokens && characters > 1) {
    characters = Math.floor(characters / 2);
    cut = `${sliceHead(rendered, characters)}${CUT_NOTE}`;
  }
  return cut;
}

function firstText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  const first = message.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
