/**
 * The summary model and format helpers over the official Anthropic SDK (`@anthropic-ai/sdk`, an
 * optional peer dependency).
 *
 * @module agent-compact/anthropic
 */

import Anthropic from '@anthropic-ai/sdk';
import { checkSummaryModelOptions } from '../core/check-options.js';
import { CompactError } from '../core/model/errors.js';
import type { ContentBlock, Conversation, Message, SystemPrompt, TextBlock } from '../core/model/messages.js';
import type {
  SummaryCallOptions,
  SummaryModel,
  SummaryRequest,
  SummaryResult,
  SummaryUsage,
} from '../core/summary/summary-model.js';
import {
  callWithRetries,
  describeSdkError,
  type SummaryRetryOptions,
  summaryRetryPolicy,
} from '../core/summary/summary-retry.js';
import { summaryUsageOf, tokenCount } from '../core/summary/summary-usage.js';

/** Options of {@link createAnthropicSummaryModel}. */
export interface AnthropicSummaryModelOptions extends SummaryRetryOptions {
  /**
   * The model that writes summaries. It need not be the agent's model: a smaller, cheaper model
   * (e.g. a Haiku while the agent runs on Opus) summarizes well. Prompt-cache reuse only happens
   * when it is the agent's model, since caches are per model.
   */
  model: string;
  /** An SDK client to use. When absent, one is created from `apiKey` and `baseURL`. */
  client?: Anthropic;
  /** The API key for a new client. @default the SDK's own default (`ANTHROPIC_API_KEY`) */
  apiKey?: string;
  /** The API origin for a new client, e.g. a proxy or the scripted test server. */
  baseURL?: string;
  /** Upper bound for the summary's length; the request's own bound is used when smaller. */
  maxTokens?: number;
  /** The summarizer's context window in tokens; longer histories are summarized in chunks. */
  contextWindow?: number;
  /**
   * The agent's tool definitions, sent unchanged: tools are the first part of the cached prefix, so
   * the summary request only reads the agent's cache when they match. Without them, the tools named
   * in the history are declared with minimal schemas and `tool_choice: none`, because the API (and
   * gateways such as Bedrock) refuse `tool_use` / `tool_result` blocks in a request without tools.
   */
  tools?: readonly Anthropic.ToolUnion[];
}

/** Request fields the summary call sets itself. */
type AnthropicSummaryParams = Anthropic.MessageCreateParamsNonStreaming;

/**
 * Creates a {@link SummaryModel} over the Anthropic Messages API.
 *
 * The summary request sends the agent's system prompt unchanged and marks the last block before the
 * summary instructions with `cache_control`, so the provider reads the agent's history from its
 * prompt cache instead of billing it again. Each try has a timeout; 429 (honouring `retry-after`),
 * 5xx, timeouts and dropped connections are retried with exponential backoff; when every try
 * fails, or the answer is empty, it throws `CompactError` with code `SUMMARY_FAILED` and the
 * provider's `status`, and the compactor's extractive fallback takes over.
 *
 * @example
 * import { createCompactor } from 'agent-compact';
 * import { createAnthropicSummaryModel } from 'agent-compact/anthropic';
 *
 * const summarizer = createAnthropicSummaryModel({ model: 'claude-haiku-4-5', maxTokens: 2000 });
 * const compactor = createCompactor({ summarizer });
 */
export function createAnthropicSummaryModel(options: AnthropicSummaryModelOptions): SummaryModel {
  checkSummaryModelOptions(options);
  const { model, client, apiKey, baseURL, maxTokens, contextWindow, tools, ...retryOptions } = options;
  const sdk =
    client ??
    new Anthropic({
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(baseURL === undefined ? {} : { baseURL }),
      // The retry loop below retries, so the SDK's own one must not multiply the tries.
      maxRetries: 0,
    });
  const policy = summaryRetryPolicy(retryOptions);

  return {
    specificationVersion: 'v1',
    provider: 'anthropic',
    modelId: model,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    async summarize(request: SummaryRequest, { signal }: SummaryCallOptions = {}): Promise<SummaryResult> {
      const params = buildSummaryParams(request, model, maxTokens, tools);
      // The type argument is explicit: inferred from the two calls' union, the result type depends on
      // the order the checker met the SDK's types, and a program of fewer files gets it wrong.
      const message = await callWithRetries<Anthropic.Message>({
        provider: 'anthropic',
        policy,
        ...(signal === undefined ? {} : { signal }),
        describeError: describeSdkError,
        attempt: (attemptSignal) => {
          // The SDK's own timeout is a backstop; the retry loop's timeout fires first.
          const requestOptions = { signal: attemptSignal, maxRetries: 0, timeout: policy.timeoutMs + 1000 };
          // The SDK refuses long non-streaming calls, so large bounds stream.
          return params.max_tokens > streamingFromTokens
            ? sdk.messages.stream(params, requestOptions).finalMessage()
            : sdk.messages.create(params, requestOptions);
        },
      });
      return resultFromMessage(message, params.max_tokens);
    },
  };
}

function buildSummaryParams(
  request: SummaryRequest,
  model: string,
  maxTokens: number | undefined,
  tools: readonly Anthropic.ToolUnion[] | undefined,
): AnthropicSummaryParams {
  // The agent's tools may hold breakpoints of their own: they count towards the API's limit too.
  const toolBreakpoints = tools?.filter((tool) => 'cache_control' in tool && tool.cache_control).length ?? 0;
  const { system, messages } = toAnthropicParams({
    ...(request.system === undefined ? {} : { system: request.system }),
    messages: withBreakpointWithin(request.messages, systemBreakpoints(request.system) + toolBreakpoints),
  });
  return {
    model,
    max_tokens: Math.max(1, Math.min(request.maxOutputTokens, maxTokens ?? Number.POSITIVE_INFINITY)),
    ...(system === undefined ? {} : { system }),
    ...(tools ? { tools: [...tools] } : declaredTools(request.messages)),
    messages,
  };
}

/** Minimal declarations of the tools the history used, so the API accepts its tool blocks. */
function declaredTools(messages: readonly Message[]): Pick<AnthropicSummaryParams, 'tools' | 'tool_choice'> {
  const names = new Set<string>();
  let hasToolResults = false;
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use') names.add(String((block as { name?: unknown }).name));
      if (block.type === 'tool_result') hasToolResults = true;
    }
  }
  if (names.size === 0 && !hasToolResults) return {};
  if (names.size === 0) names.add('tool');
  return {
    tools: [...names].map((name) => ({
      name,
      description: 'A tool used earlier in this conversation.',
      input_schema: { type: 'object' as const },
    })),
    tool_choice: { type: 'none' },
  };
}

/** Summaries allowed more output tokens than this are streamed. */
const streamingFromTokens = 16_384;

/** Block types the API accepts `cache_control` on. */
const cacheableTypes = new Set(['text', 'image', 'document', 'tool_use', 'tool_result', 'search_result']);

/** The API's limit on `cache_control` blocks in one request. */
const maxBreakpoints = 4;

/**
 * Copies the messages with one `cache_control` breakpoint on the last cacheable block before the
 * final (instruction) message, so the kept prefix is read from the prompt cache. Breakpoints the
 * messages already carry are dropped (they do not change the cached prefix, only where it may end)
 * so the request stays within the API's limit of four. Never mutates its input.
 */
export function withCacheBreakpoint(messages: readonly Message[], system?: SystemPrompt): Message[] {
  return withBreakpointWithin(messages, systemBreakpoints(system));
}

/** The breakpoints a system prompt holds. */
function systemBreakpoints(system: SystemPrompt | undefined): number {
  return typeof system === 'string' || system === undefined
    ? 0
    : system.filter((block) => block.cache_control).length;
}

/**
 * {@link withCacheBreakpoint} for a request whose system prompt and tools already hold `reserved`
 * breakpoints: one is added only while the request stays within the API's four.
 */
function withBreakpointWithin(messages: readonly Message[], reserved: number): Message[] {
  const copies = messages.map((message) => withoutCacheControl(message));
  if (reserved >= maxBreakpoints) return copies;
  for (let messageIndex = copies.length - 2; messageIndex >= 0; messageIndex -= 1) {
    const message = copies[messageIndex] as Message;
    const blocks: ContentBlock[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
    for (let blockIndex = blocks.length - 1; blockIndex >= 0; blockIndex -= 1) {
      const block = blocks[blockIndex] as ContentBlock;
      if (!cacheableTypes.has(block.type)) continue;
      if (block.type === 'text' && (block as TextBlock).text.trim() === '') continue;
      blocks[blockIndex] = { ...block, cache_control: { type: 'ephemeral' } };
      copies[messageIndex] = { role: message.role, content: blocks };
      return copies;
    }
  }
  return copies;
}

function withoutCacheControl(message: Message): Message {
  if (typeof message.content === 'string' || !message.content.some((block) => 'cache_control' in block)) {
    return message;
  }
  return {
    role: message.role,
    content: message.content.map((block) => {
      if (!('cache_control' in block)) return block;
      const { cache_control: _dropped, ...rest } = block as ContentBlock & { cache_control?: unknown };
      return rest as ContentBlock;
    }),
  };
}

function resultFromMessage(message: Anthropic.Message, maxTokens: number): SummaryResult {
  const usage = summaryUsageFromAnthropic(message.usage);
  const text = message.content
    .filter((block): block is Anthropic.TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('')
    .trim();
  if (text === '') {
    const types = message.content.map((block) => block.type).join(', ') || 'no content';
    throw new CompactError(
      `anthropic summary answer has no text (${types}; stop_reason ${message.stop_reason})`,
      {
        code: 'SUMMARY_FAILED',
      },
    );
  }
  // A provider never writes more than max_tokens; an answer that claims to is broken.
  if (usage.outputTokens !== undefined && usage.outputTokens > maxTokens) {
    throw new CompactError(
      `anthropic summary answer is ${usage.outputTokens} tokens, more than the ${maxTokens} asked for`,
      { code: 'SUMMARY_FAILED' },
    );
  }
  return { text, usage };
}

/** Converts the SDK's usage to a {@link SummaryUsage}; a count that is no token count is left out. */
export function summaryUsageFromAnthropic(usage: Partial<Anthropic.Usage> | undefined): SummaryUsage {
  if (!usage) return {};
  const input = tokenCount(usage.input_tokens);
  const cacheRead = tokenCount(usage.cache_read_input_tokens);
  const cacheWrite = tokenCount(usage.cache_creation_input_tokens);
  return summaryUsageOf({
    // `input_tokens` leaves out what the cache read and wrote: the summary's input is all three.
    inputTokens: input === undefined ? undefined : input + (cacheRead ?? 0) + (cacheWrite ?? 0),
    outputTokens: usage.output_tokens,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  });
}

/** A conversation typed with the SDK's own parameter types. */
export interface AnthropicParams {
  system?: string | Anthropic.TextBlockParam[];
  messages: Anthropic.MessageParam[];
}

/**
 * Types a canonical conversation with the SDK's own `MessageParam`, ready for
 * `client.messages.create`. The canonical model is the Anthropic shape, so this copies and strips
 * fields the API does not know from the blocks this library models; other block types pass as
 * they are.
 *
 * @example
 * const { system, messages } = toAnthropicParams(conversation);
 * await client.messages.create({ model, max_tokens: 1024, system, messages });
 */
export function toAnthropicParams(conversation: Conversation): AnthropicParams {
  const result: AnthropicParams = {
    messages: conversation.messages.map(
      (message) =>
        ({
          role: message.role,
          content: typeof message.content === 'string' ? message.content : message.content.map(cleanBlock),
        }) as Anthropic.MessageParam,
    ),
  };
  if (conversation.system !== undefined) {
    result.system =
      typeof conversation.system === 'string'
        ? conversation.system
        : (conversation.system.map(cleanBlock) as Anthropic.TextBlockParam[]);
  }
  return result;
}

/**
 * Reads SDK messages (a request's `messages` or `{ role: 'assistant', content: message.content }`
 * of a response) back into the canonical model, dropping response-only fields such as
 * `citations: null`.
 *
 * @example
 * const reply = await client.messages.create({ model, max_tokens: 1024, messages });
 * conversation.messages.push(...fromAnthropicParams({ messages: [{ role: 'assistant', content: reply.content }] }).messages);
 */
export function fromAnthropicParams(params: {
  system?: string | readonly Anthropic.TextBlockParam[];
  messages: readonly (
    | Anthropic.MessageParam
    | { role: 'assistant'; content: readonly Anthropic.ContentBlock[] }
  )[];
}): Conversation {
  const messages: Message[] = [];
  for (const message of params.messages) {
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    const content = message.content as string | readonly ContentBlock[];
    messages.push({
      role: message.role,
      content: typeof content === 'string' ? content : content.map((block) => cleanBlock(block)),
    });
  }
  const conversation: Conversation = { messages };
  if (params.system !== undefined) {
    conversation.system =
      typeof params.system === 'string'
        ? params.system
        : params.system.map((block) => cleanBlock(block as unknown as ContentBlock) as TextBlock);
  }
  return conversation;
}

/** The fields each modelled block type may carry on a request. */
const requestFields: Record<string, readonly string[]> = {
  text: ['type', 'text', 'cache_control', 'citations'],
  image: ['type', 'source', 'cache_control'],
  thinking: ['type', 'thinking', 'signature'],
  redacted_thinking: ['type', 'data'],
  tool_use: ['type', 'id', 'name', 'input', 'cache_control'],
  tool_result: ['type', 'tool_use_id', 'content', 'is_error', 'cache_control'],
};

function cleanBlock<T extends { type: string }>(block: T): T {
  const fields = requestFields[block.type];
  if (!fields) return block;
  const source = block as unknown as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const field of fields) {
    const value = source[field];
    // Responses carry `citations: null`; a request omits the field instead.
    if (value === undefined || value === null) continue;
    copy[field] =
      field === 'content' && Array.isArray(value)
        ? value.map((inner: { type: string }) => cleanBlock(inner))
        : value;
  }
  return copy as unknown as T;
}

export { compactToolAnthropic, recallToolAnthropic } from './compaction-tools.js';
