import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, Message, TextBlock } from 'agent-compact';
import { DEFAULT_SDK_MAX_RETRIES, DEFAULT_SDK_TIMEOUT_MS, lazyClient } from '../../_sdk-client.js';
import { type ChatModel, type ChatRequest, type ChatStopReason, toModelCallError } from '../../chat-model.js';
import { toAnthropicTool } from '../../tool-definitions.js';

/** Options of {@link createAnthropicChatModel}. */
export interface AnthropicChatModelOptions {
  /** The model id, e.g. `claude-sonnet-5-5`. */
  model: string;
  /** The API key. Ignored when `client` is given. */
  apiKey?: string;
  /** Another server speaking the Anthropic API. @default https://api.anthropic.com */
  baseURL?: string;
  /** A ready client; `apiKey` and `baseURL` are then ignored. */
  client?: Anthropic;
  /** Retries of the SDK on 429 / 5xx / connection errors. @default 2 */
  maxRetries?: number;
  /** Per-request timeout in milliseconds. @default 600000 */
  timeoutMs?: number;
  /**
   * Mark the system prompt and the newest block for prompt caching, so each step pays only for
   * what is new. `'off'` sends no `cache_control`.
   * @default 'auto'
   */
  promptCaching?: 'auto' | 'off';
}

/**
 * A {@link ChatModel} over `@anthropic-ai/sdk` (`messages.create`).
 *
 * @example
 * const model = createAnthropicChatModel({ model: 'claude-sonnet-5-5', apiKey: process.env.ANTHROPIC_API_KEY });
 * const { message, usage } = await model.generate({ system, messages, tools: agentToolDefinitions, maxOutputTokens: 8192 });
 */
export function createAnthropicChatModel({
  model,
  apiKey,
  baseURL,
  client,
  maxRetries = DEFAULT_SDK_MAX_RETRIES,
  timeoutMs = DEFAULT_SDK_TIMEOUT_MS,
  promptCaching = 'auto',
}: AnthropicChatModelOptions): ChatModel {
  const getClient = lazyClient(client, () =>
    import('@anthropic-ai/sdk').then(
      ({ default: AnthropicClient }) =>
        new AnthropicClient({
          apiKey: apiKey ?? null,
          baseURL: baseURL ?? null,
          maxRetries,
          timeout: timeoutMs,
        }),
    ),
  );
  return {
    specificationVersion: 'v1',
    provider: 'anthropic',
    modelId: model,
    async generate(call, { signal } = {}) {
      const body = requestBody(model, call, promptCaching === 'auto');
      const anthropic = await getClient();
      let response: Anthropic.Message;
      try {
        response = await anthropic.messages.create(
          body as unknown as Anthropic.MessageCreateParamsNonStreaming,
          {
            signal,
          },
        );
      } catch (error) {
        throw toModelCallError(error, 'anthropic', anthropic.baseURL);
      }
      return {
        message: { role: 'assistant', content: response.content as unknown as ContentBlock[] },
        stopReason: stopReasonOf(response.stop_reason),
        usage: {
          input_tokens: response.usage.input_tokens,
          output_tokens: response.usage.output_tokens,
          cache_creation_input_tokens: response.usage.cache_creation_input_tokens ?? null,
          cache_read_input_tokens: response.usage.cache_read_input_tokens ?? null,
        },
      };
    },
  };
}

/**
 * A Messages API body for one call: empty system blocks left out (the API refuses them) and, with
 * prompt caching, breakpoints on the last system block and the conversation.
 */
function requestBody(
  model: string,
  { system, messages, tools, maxOutputTokens, toolChoice = 'auto' }: ChatRequest,
  cached: boolean,
): Record<string, unknown> {
  const systemBlocks: TextBlock[] = (
    typeof system === 'string'
      ? [{ type: 'text' as const, text: system }]
      : system.map((block) => ({ ...block }))
  ).filter((block) => block.text !== '');
  const lastSystem = systemBlocks.at(-1);
  if (cached && lastSystem) lastSystem.cache_control = { type: 'ephemeral' };
  return {
    model,
    max_tokens: maxOutputTokens,
    ...(systemBlocks.length > 0 ? { system: systemBlocks } : {}),
    messages: cached ? withCacheBreakpoint(messages) : messages,
    ...(tools.length > 0 ? { tools: tools.map(toAnthropicTool) } : {}),
    ...(tools.length > 0 && toolChoice === 'none' ? { tool_choice: { type: 'none' } } : {}),
  };
}

function stopReasonOf(reason: string | null): ChatStopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end-turn';
    case 'tool_use':
      return 'tool-use';
    case 'max_tokens':
      return 'max-tokens';
    default:
      return 'other';
  }
}

/** A copy of the messages with a cache breakpoint on the last block (the input is not changed). */
function withCacheBreakpoint(messages: readonly Message[]): Message[] {
  const copy = [...messages];
  const last = copy.at(-1);
  if (!last) return copy;
  const blocks: ContentBlock[] =
    typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content];
  const lastBlock = blocks.at(-1);
  const cacheable = new Set(['text', 'image', 'tool_use', 'tool_result']);
  if (!lastBlock || !cacheable.has(lastBlock.type)) return copy;
  if (lastBlock.type === 'text' && lastBlock.text === '') return copy;
  blocks[blocks.length - 1] = { ...lastBlock, cache_control: { type: 'ephemeral' } };
  copy[copy.length - 1] = { ...last, content: blocks };
  return copy;
}
