/**
 * The summary model and format helpers over the official OpenAI SDK (`openai` 6 or 7, an optional
 * peer dependency). Works with any OpenAI-compatible server by `baseURL`: Ollama, vLLM, the
 * llama.cpp server, OpenRouter.
 *
 * @module agent-compact/openai
 */

import OpenAI from 'openai';
import { checkSummaryModelOptions } from '../core/check-options.js';
import { fromOpenAIMessages } from '../core/conversation/openai-format.js';
import type { OpenAIChatMessage, OpenAISystemRole } from '../core/conversation/openai-types.js';
import type { Conversation } from '../core/model/messages.js';
import type { SummaryModel } from '../core/summary/summary-model.js';
import { type SummaryRetryOptions, summaryRetryPolicy } from '../core/summary/summary-retry.js';
import { createChatSummaryModel } from './wire/openai-chat/chat-summary.js';
import { createResponsesSummaryModel } from './wire/responses/responses-summary.js';

export { summaryUsageFromOpenAI, toChatCompletionMessages } from './wire/openai-chat/chat-summary.js';

export {
  fromResponsesInputParams,
  summaryUsageFromResponses,
  toResponsesInputParams,
} from './wire/responses/responses-summary.js';

/** Options of {@link createOpenAISummaryModel}. */
export interface OpenAISummaryModelOptions extends SummaryRetryOptions {
  /**
   * The API the summary is asked over: Chat Completions (`client.chat.completions.create`, any
   * OpenAI-compatible server) or Responses (`client.responses.create`, `store: false`; the system
   * prompt goes as `instructions`, `maxTokensField` and `systemRole` do not apply).
   * @default 'chat'
   */
  api?: 'chat' | 'responses';
  /**
   * The model that writes summaries. It need not be the agent's model: a smaller, cheaper model
   * (e.g. a mini model, or a local one behind `baseURL`) summarizes well.
   */
  model: string;
  /** An SDK client to use. When absent, one is created from `apiKey` and `baseURL`. */
  client?: OpenAI;
  /** The API key for a new client. @default the SDK's own default (`OPENAI_API_KEY`) */
  apiKey?: string;
  /** The API base URL for a new client, e.g. `http://localhost:11434/v1` for Ollama. */
  baseURL?: string;
  /** Upper bound for the summary's length; the request's own bound is used when smaller. */
  maxTokens?: number;
  /**
   * The request field that carries the bound. OpenAI's reasoning models only take
   * `max_completion_tokens`; some OpenAI-compatible servers only know `max_tokens`.
   * @default 'max_completion_tokens' without `baseURL`, 'max_tokens' with one
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** The role the system prompt is sent with. @default 'system' */
  systemRole?: OpenAISystemRole;
  /** The summarizer's context window in tokens; longer histories are summarized in chunks. */
  contextWindow?: number;
  /**
   * The agent's tool definitions, sent unchanged with `tool_choice: 'none'`: tools are part of the
   * prefix OpenAI caches, so sending the agent's own lets the summary request reuse its cache.
   */
  tools?: readonly OpenAI.ChatCompletionTool[] | readonly OpenAI.Responses.Tool[];
}

/**
 * Creates a {@link SummaryModel} over the OpenAI Chat Completions API or any server that speaks it,
 * or with `api: 'responses'` over the OpenAI Responses API.
 *
 * The conversation is converted with the core's `toOpenAIMessages`; the system prompt and history
 * go first, unchanged, so providers with automatic prompt caching reuse the agent's prefix. Each
 * try has a timeout; 429 (honouring `retry-after`), 5xx, timeouts and dropped connections are
 * retried with exponential backoff; when every try fails, or the answer is empty or not text, it
 * throws `CompactError` with code `SUMMARY_FAILED` and the provider's `status`, and the compactor's
 * extractive fallback takes over.
 *
 * @example
 * import { createCompactor } from 'agent-compact';
 * import { createOpenAISummaryModel } from 'agent-compact/openai';
 *
 * const summarizer = createOpenAISummaryModel({
 *   model: 'qwen3:8b',
 *   baseURL: 'http://localhost:11434/v1',
 *   apiKey: 'ollama',
 * });
 * const compactor = createCompactor({ summarizer });
 */
export function createOpenAISummaryModel(options: OpenAISummaryModelOptions): SummaryModel {
  checkSummaryModelOptions(options);
  const {
    api = 'chat',
    model,
    client,
    apiKey,
    baseURL,
    maxTokens,
    maxTokensField = baseURL === undefined && client === undefined ? 'max_completion_tokens' : 'max_tokens',
    systemRole = 'system',
    contextWindow,
    tools,
    ...retryOptions
  } = options;
  const sdk =
    client ??
    new OpenAI({
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(baseURL === undefined ? {} : { baseURL }),
      // The retry loop below retries, so the SDK's own one must not multiply the tries.
      maxRetries: 0,
    });
  const policy = summaryRetryPolicy(retryOptions);
  if (api === 'responses') {
    const responsesTools = tools as readonly OpenAI.Responses.Tool[] | undefined;
    return createResponsesSummaryModel({
      sdk,
      model,
      policy,
      maxTokens,
      contextWindow,
      tools: responsesTools,
    });
  }
  const chatTools = tools as readonly OpenAI.ChatCompletionTool[] | undefined;
  return createChatSummaryModel({
    sdk,
    model,
    policy,
    maxTokens,
    maxTokensField,
    systemRole,
    contextWindow,
    tools: chatTools,
  });
}

/**
 * Converts Chat Completions messages (request messages, or a response's `choices[0].message`) to the
 * canonical model.
 *
 * @example
 * const completion = await client.chat.completions.create({ model, messages });
 * const { messages } = fromChatCompletionMessages([...sent, completion.choices[0].message]);
 */
export function fromChatCompletionMessages(
  messages: readonly (OpenAI.ChatCompletionMessageParam | OpenAI.ChatCompletionMessage)[],
): Conversation {
  const { system, messages: canonical } = fromOpenAIMessages(messages.map(withoutResponseFields));
  return system === undefined ? { messages: canonical } : { system, messages: canonical };
}

/** Drops response-only fields (`annotations`, `audio`, a null `refusal`) and legacy function messages. */
function withoutResponseFields(
  message: OpenAI.ChatCompletionMessageParam | OpenAI.ChatCompletionMessage,
): OpenAIChatMessage {
  if (message.role === 'function') {
    return { role: 'user', content: `[function ${message.name} result] ${message.content ?? ''}` };
  }
  if (message.role !== 'assistant') return message as OpenAIChatMessage;
  const {
    annotations: _annotations,
    audio: _audio,
    refusal,
    function_call: _functionCall,
    ...rest
  } = message as OpenAI.ChatCompletionMessage;
  const toolCalls = rest.tool_calls?.filter((call) => call.type === 'function');
  return {
    ...(rest as OpenAIChatMessage),
    ...(toolCalls === undefined ? {} : { tool_calls: toolCalls }),
    ...(refusal ? { refusal } : {}),
  } as OpenAIChatMessage;
}

export { compactToolOpenAI, recallToolOpenAI } from './compaction-tools.js';
