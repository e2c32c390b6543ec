import type { Message, ProviderUsage } from 'agent-compact';
import type { OpenAIAssistantMessage, OpenAIChatMessage } from 'agent-compact/wire';
import { fromOpenAIMessages, toOpenAIMessages } from 'agent-compact/wire';
import type OpenAI from 'openai';
import {
  DEFAULT_SDK_MAX_RETRIES,
  DEFAULT_SDK_TIMEOUT_MS,
  lazyOpenAIClient,
  withChildSignal,
} from '../../_sdk-client.js';
import { type ChatModel, type ChatStopReason, toModelCallError } from '../../chat-model.js';
import { toOpenAITool } from '../../tool-definitions.js';

/** Options of {@link createOpenAIChatModel}. */
export interface OpenAIChatModelOptions {
  /** The model id, e.g. `gpt-5.4` or a local model's name. */
  model: string;
  /** The API key. Ignored when `client` is given. */
  apiKey?: string;
  /** Any OpenAI-compatible server (Ollama, vLLM, llama.cpp, OpenRouter). @default https://api.openai.com/v1 */
  baseURL?: string;
  /** A ready client; `apiKey` and `baseURL` are then ignored. */
  client?: OpenAI;
  /** Retries of the SDK on 429 / 5xx / connection errors. @default 2 */
  maxRetries?: number;
  /** Per-request timeout in milliseconds. @default 600000 */
  timeoutMs?: number;
}

/**
 * A {@link ChatModel} over `openai` (`chat.completions.create`), converting with
 * `toOpenAIMessages` / `fromOpenAIMessages`.
 *
 * @example
 * const model = createOpenAIChatModel({ model: 'qwen3', baseURL: 'http://localhost:11434/v1', apiKey: 'ollama' });
 */
export function createOpenAIChatModel({
  model,
  apiKey,
  baseURL,
  client,
  maxRetries = DEFAULT_SDK_MAX_RETRIES,
  timeoutMs = DEFAULT_SDK_TIMEOUT_MS,
}: OpenAIChatModelOptions): ChatModel {
  const getClient = lazyOpenAIClient({ apiKey, baseURL, client, maxRetries, timeoutMs });
  return {
    specificationVersion: 'v1',
    provider: 'openai',
    modelId: model,
    async generate({ system, messages, tools, maxOutputTokens, toolChoice = 'auto' }, { signal } = {}) {
      const body = {
        model,
        max_completion_tokens: maxOutputTokens,
        messages: toOpenAIMessages({ system, messages }),
        ...(tools.length > 0 ? { tools: tools.map(toOpenAITool) } : {}),
        ...(tools.length > 0 && toolChoice === 'none' ? { tool_choice: 'none' } : {}),
      };
      const openai = await getClient();
      let completion: OpenAI.ChatCompletion;
      try {
        completion = await withChildSignal(signal, (callSignal) =>
          openai.chat.completions.create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming, {
            signal: callSignal,
          }),
        );
      } catch (error) {
        throw toModelCallError(error, 'openai', openai.baseURL);
      }
      const choice = completion.choices[0];
      const answer = (choice?.message ?? {
        role: 'assistant',
        content: '',
      }) as unknown as OpenAIAssistantMessage;
      const converted = fromOpenAIMessages([answer as OpenAIChatMessage]).messages[0];
      const message: Message = converted ?? { role: 'assistant', content: [] };
      const usage: ProviderUsage | undefined = completion.usage
        ? {
            prompt_tokens: completion.usage.prompt_tokens,
            completion_tokens: completion.usage.completion_tokens,
          }
        : undefined;
      return { message, stopReason: stopReasonOf(choice?.finish_reason), usage };
    },
  };
}

function stopReasonOf(reason: string | null | undefined): ChatStopReason {
  switch (reason) {
    case 'stop':
      return 'end-turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool-use';
    case 'length':
      return 'max-tokens';
    default:
      return 'other';
  }
}
