import { escapeReservedTags, safeJson, shortenLine, toolResultText } from '../_internal/text.js';
import type { ArchiveItem } from '../archive/archive-store.js';
import type {
  ContentBlock,
  Message,
  SystemPrompt,
  TextBlock,
  ToolResultBlock,
} from '../conversation/types.js';
import { CompactError } from '../errors.js';
import type { CompactionEventHandler } from '../events.js';
import { extractiveSummary } from '../summary/extractive-summary.js';
import { readableHistory } from '../summary/readable-history.js';
import { bridgeText, summaryAcknowledgement, summaryInstructions } from '../summary/summary-format.js';
import type { SummaryModel, SummaryResult } from '../summary/summary-model.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** Resolved options of the hard layer. */
export interface HardSettings {
  summarizer: SummaryModel;
  identity: string;
  maxSummaryTokens: number;
  maxAttempts: number;
  retryDelayMs: number;
  timeoutMs: number;
}

/** Everything the hard layer needs besides the messages. */
export interface HardContext {
  settings: HardSettings;
  counter: TokenCounter;
  system?: SystemPrompt;
  sessionId: string;
  now: number;
  /** Allocates the archive id of the dropped history. */
  newArchiveId(): string;
  /** Stores items before they leave the context. */
  archive(items: ArchiveItem[]): Promise<void>;
  onEvent: CompactionEventHandler;
  focus?: string;
  signal?: AbortSignal;
}

/** How a history splits for a hard compaction. */
export interface HardSplit {
  /** What the summary replaces. */
  dropped: Message[];
  /** The most recent turn, kept verbatim. */
  tail: Message[];
  /** The latest human request (blocks other than tool results), unless the tail already holds it. */
  latestRequest: ContentBlock[] | undefined;
  /** True when the latest human request is inside the tail's tool-result message. */
  requestInTail: boolean;
}

const summaryOpen = '<context_summary';

/** Splits a history into what the summary replaces and the most recent turn kept verbatim. */
export function splitForHard(messages: readonly Message[]): HardSplit {
  const last = messages.length - 1;
  let tailStart = last;
  const answersTools = (message: Message | undefined) =>
    Array.isArray(message?.content) && message.content.some((block) => block.type === 'tool_result');
  if (messages[last]?.role === 'assistant' && messages[last - 1]?.role === 'user') {
    // A history ending with an assistant message (a prefill) keeps the turn before it too.
    tailStart = answersTools(messages[last - 1]) ? last - 2 : last - 1;
  } else if (answersTools(messages[last])) {
    tailStart = last - 1;
  }
  // The kept turn must hold the tool_use of every tool_result in it.
  while (tailStart > 0 && hasOrphanResult(messages.slice(tailStart))) tailStart--;
  tailStart = Math.max(0, tailStart);
  const dropped = messages.slice(0, tailStart);
  const tail = messages.slice(tailStart);

  let latestRequest: ContentBlock[] | undefined;
  let requestInTail = false;
  for (let index = last; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== 'user') continue;
    const human = humanBlocks(message);
    if (human.length === 0 || (human.length === 1 && (human[0] as TextBlock).text === bridgeText)) continue;
    if (human.some((block) => block.type === 'text' && (block as TextBlock).text.startsWith(summaryOpen)))
      break;
    if (index >= tailStart) {
      requestInTail = tail[0]?.role === 'assistant';
    } else {
      latestRequest = human;
    }
    break;
  }
  return { dropped, tail, latestRequest, requestInTail };
}

function hasOrphanResult(tail: readonly Message[]): boolean {
  const ids = new Set<string>();
  for (const message of tail) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use') ids.add(String(block.id));
      else if (block.type === 'tool_result' && !ids.has(String(block.tool_use_id))) return true;
    }
  }
  return false;
}

/** The blocks of a user message that a human wrote (everything but tool results). */
function humanBlocks(message: Message): ContentBlock[] {
  if (typeof message.content === 'string') {
    return message.content.trim() === '' ? [] : [{ type: 'text', text: message.content }];
  }
  return message.content.filter((block) => block.type !== 'tool_result');
}

/**
 * Layer 3: archives the history first, has the summary model write a dense summary in fixed
 * sections (in chunks when the history exceeds the model's window, retrying with backoff, then
 * falling back to the extractive summary), and returns a small valid history:
 * `<context_summary>` + `<identity>` (user), the acknowledgement (assistant), the latest human
 * request verbatim (user), then the most recent turn verbatim.
 */
export async function hardCompact(
  messages: readonly Message[],
  context: HardContext,
): Promise<{ messages: Message[]; items: ArchiveItem[] } | undefined> {
  const split = splitForHard(messages);
  // Nothing before the kept turn: there is nothing to summarize.
  if (split.dropped.length === 0) return undefined;
  const archiveId = context.newArchiveId();
  const item: ArchiveItem = {
    id: archiveId,
    sessionId: context.sessionId,
    kind: 'messages',
    createdAt: context.now,
    messages: split.dropped,
  };
  const tailIsHumanRequest = split.tail.length === 1 && split.tail[0]!.role === 'user';
  const needsBridge = !tailIsHumanRequest && split.tail[0]?.role !== 'user';
  item.headLength = needsBridge ? 3 : 2;
  // Archive first: if summarizing fails or the process dies, nothing has been lost.
  await context.archive([item]);

  // The summarizer reads only what is readable: nothing signed or encrypted leaves for another model.
  const summary = await writeSummary(readableHistory(split.dropped), context);
  const head: Message[] = [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text:
            `<context_summary recall="${archiveId}">\n${summary}\n</context_summary>\n\n` +
            `<identity>\n${escapeReservedTags(context.settings.identity)}\n</identity>`,
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: summaryAcknowledgement }] },
  ];
  const output: Message[] = [...head];
  if (needsBridge) {
    const request = split.latestRequest && !split.requestInTail ? split.latestRequest : undefined;
    output.push({ role: 'user', content: request ?? [{ type: 'text', text: bridgeText }] });
  }
  output.push(...split.tail);
  return { messages: output, items: [item] };
}

async function writeSummary(dropped: readonly Message[], context: HardContext): Promise<string> {
  const { settings, counter } = context;
  const mergesPrevious = dropped.some((message) => firstText(message).startsWith(summaryOpen));
  const instructions = summaryInstructions({
    mergesPrevious,
    ...(context.focus ? { focus: context.focus } : {}),
  });
  const droppedTokens = dropped.reduce((sum, message) => sum + counter.countText(renderMessage(message)), 0);
  const window = settings.summarizer.contextWindow;
  const budget = window === undefined ? Number.POSITIVE_INFINITY : window - settings.maxSummaryTokens - 2000;

  let lastError: unknown;
  let attempts = 0;
  for (let attempt = 1; attempt <= settings.maxAttempts; attempt++) {
    attempts = attempt;
    try {
      const text =
        droppedTokens <= budget
          ? await callModel(withInstructions(dropped, instructions), context)
          : await summarizeInChunks(dropped, budget, instructions, context);
      return acceptSummary(text, droppedTokens, context);
    } catch (error) {
      if (context.signal?.aborted) {
        throw new CompactError('compaction was aborted', { code: 'ABORTED', cause: error });
      }
      lastError = error;
      safeEmit(context.onEvent, { type: 'summary-error', attempt, error });
      if (!worthRetrying(error, settings.summarizer)) break;
      if (attempt < settings.maxAttempts)
        await sleep(settings.retryDelayMs * 2 ** (attempt - 1), context.signal);
    }
  }
  safeEmit(context.onEvent, {
    type: 'fallback-used',
    reason: `summary model ${settings.summarizer.provider}:${settings.summarizer.modelId} failed after ${attempts} attempt(s): ${describe(lastError)}`,
  });
  return extractiveSummary(dropped, settings.maxSummaryTokens);
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
function acceptSummary(text: string, droppedTokens: number, context: HardContext): string {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (trimmed === '') throw rejectAnswer('the summary model returned an empty summary');
  const tokens = context.counter.countText(trimmed);
  if (tokens >= droppedTokens) {
    throw rejectAnswer(
      `the summary (${tokens} tokens) is not smaller than the history it replaces (${droppedTokens})`,
    );
  }
  if (tokens > context.settings.maxSummaryTokens * 2) {
    throw rejectAnswer(`the summary (${tokens} tokens) exceeds twice maxSummaryTokens`);
  }
  return escapeReservedTags(trimmed);
}

async function callModel(messages: Message[], context: HardContext): Promise<string> {
  const timeout = AbortSignal.timeout(context.settings.timeoutMs);
  const signal = context.signal ? AbortSignal.any([context.signal, timeout]) : timeout;
  const result: SummaryResult = await context.settings.summarizer.summarize(
    {
      ...(context.system === undefined ? {} : { system: context.system }),
      messages,
      maxOutputTokens: context.settings.maxSummaryTokens,
    },
    { signal },
  );
  if (result.usage) {
    safeEmit(context.onEvent, {
      type: 'summary-usage',
      usage: result.usage,
      modelId: context.settings.summarizer.modelId,
    });
  }
  if (typeof result.text !== 'string') {
    throw rejectAnswer('the summary model returned no text');
  }
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

/** Summarizes a history too large for the model's window: chunk by chunk, each merged into the last. */
async function summarizeInChunks(
  history: readonly Message[],
  budget: number,
  instructions: string,
  context: HardContext,
): Promise<string> {
  const chunkBudget = Math.max(1000, Math.floor(budget * 0.8));
  let summary = '';
  let chunk: string[] = [];
  let chunkTokens = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    const previous = summary ? `<context_summary>\n${summary}\n</context_summary>\n\n` : '';
    const text = `${previous}Transcript of the next part of the conversation:\n\n${chunk.join('\n\n')}`;
    summary = await callModel(withInstructions([{ role: 'user', content: text }], instructions), context);
    chunk = [];
    chunkTokens = 0;
  };
  for (const message of history) {
    let rendered = renderMessage(message);
    let tokens = context.counter.countText(rendered);
    if (tokens > chunkBudget) {
      // One message larger than a chunk keeps its head; the whole message is in the archive.
      rendered = `${rendered.slice(0, chunkBudget * 2)}\n[… cut for the summary; the whole message is archived]`;
      tokens = context.counter.countText(rendered);
    }
    if (chunkTokens + tokens > chunkBudget) await flush();
    chunk.push(rendered);
    chunkTokens += tokens;
  }
  await flush();
  return summary;
}

/** A message as plain transcript text (for chunked summaries and size estimates). */
export function renderMessage(message: Message): string {
  const blocks =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content } as ContentBlock]
      : message.content;
  const parts = blocks.map((block) => {
    switch (block.type) {
      case 'text':
        return escapeReservedTags(String(block.text));
      case 'tool_use':
        return `→ ${String(block.name)} ${safeJson(block.input)}`;
      case 'tool_result':
        return `← ${escapeReservedTags(toolResultText(block as ToolResultBlock))}`;
      case 'thinking':
        return '';
      default:
        return `[${block.type}]`;
    }
  });
  return `${message.role}: ${parts.filter(Boolean).join('\n')}`;
}

function firstText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  const first = message.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

function safeEmit(handler: CompactionEventHandler, event: Parameters<CompactionEventHandler>[0]): void {
  try {
    handler(event);
  } catch {
    // Event handlers must not break compaction.
  }
}

function describe(error: unknown): string {
  return shortenLine(error instanceof Error ? error.message : String(error), 200);
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
