import type { ContentBlock, Message, ProviderUsage, SystemPrompt } from 'agent-compact';
import type { ResponsesInputItem } from 'agent-compact/wire';
import { fromResponsesInput, toResponsesInput } from 'agent-compact/wire';
import type OpenAI from 'openai';
import {
  DEFAULT_SDK_MAX_RETRIES,
  DEFAULT_SDK_TIMEOUT_MS,
  lazyOpenAIClient,
  withChildSignal,
} from '../../_sdk-client.js';
import { type ChatModel, type ChatStopReason, toModelCallError } from '../../chat-model.js';
import type { AgentToolDefinition } from '../../tool-definitions.js';

/** Options of {@link createOpenAIResponsesChatModel}. */
export interface OpenAIResponsesChatModelOptions {
  /** The model id, e.g. `gpt-5.4`. */
  model: string;
  /** The API key. Ignored when `client` is given. */
  apiKey?: string;
  /** Another server speaking the Responses API. @default https://api.openai.com/v1 */
  baseURL?: string;
  /** A ready client; `apiKey` and `baseURL` are then ignored. */
  client?: OpenAI;
  /** Retries of the SDK on 429 / 5xx / connection errors. @default 2 */
  maxRetries?: number;
  /** Per-request timeout in milliseconds. @default 600000 */
  timeoutMs?: number;
}

/**
 * A {@link ChatModel} over the OpenAI Responses API (`responses.create`), stateless like Codex:
 * `store: false` with `include: ["reasoning.encrypted_content"]`, so the reasoning items the model
 * returns travel in the conversation (unchanged, beside the call they preceded) instead of being
 * stored by the provider. Converts with `toResponsesInput` / `fromResponsesInput`.
 *
 * @example
 * const model = createOpenAIResponsesChatModel({ model: 'gpt-5.4', apiKey: process.env.OPENAI_API_KEY });
 */
export function createOpenAIResponsesChatModel({
  model,
  apiKey,
  baseURL,
  client,
  maxRetries = DEFAULT_SDK_MAX_RETRIES,
  timeoutMs = DEFAULT_SDK_TIMEOUT_MS,
}: OpenAIResponsesChatModelOptions): ChatModel {
  const getClient = lazyOpenAIClient({ apiKey, baseURL, client, maxRetries, timeoutMs });
  return {
    specificationVersion: 'v1',
    provider: 'openai-responses',
    modelId: model,
    async generate({ system, messages, tools, maxOutputTokens, toolChoice = 'auto' }, { signal } = {}) {
      const body: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
        model,
        instructions: systemText(system),
        input: toResponsesInput(messages) as OpenAI.Responses.ResponseInputItem[],
        max_output_tokens: maxOutputTokens,
        store: false,
        include: ['reasoning.encrypted_content'],
        ...(tools.length > 0 ? { tools: tools.map(toResponsesTool) } : {}),
        ...(tools.length > 0 && toolChoice === 'none' ? { tool_choice: 'none' as const } : {}),
      };
      const openai = await getClient();
      let response: OpenAI.Responses.Response;
      try {
        response = await withChildSignal(signal, (callSignal) =>
          openai.responses.create(body, { signal: callSignal }),
        );
      } catch (error) {
        throw toModelCallError(error, 'openai-responses', openai.baseURL);
      }
      const message = assistantMessage(response.output);
      const usage: ProviderUsage | undefined = response.usage
        ? { input_tokens: response.usage.input_tokens, output_tokens: response.usage.output_tokens }
        : undefined;
      return { message, stopReason: stopReasonOf(response), usage };
    },
  };
}

/** A tool definition in Responses function-tool form. */
export function toResponsesTool(definition: AgentToolDefinition): OpenAI.Responses.FunctionTool {
  return {
    type: 'function',
    name: definition.name,
    description: definition.description,
    parameters: definition.inputSchema as unknown as Record<string, unknown>,
    strict: false,
  };
}

/** The output items as one canonical assistant message (every output item is assistant-side). */
function assistantMessage(output: readonly OpenAI.Responses.ResponseOutputItem[]): Message {
  const { messages } = fromResponsesInput(output as unknown as ResponsesInputItem[]);
  const content: ContentBlock[] = messages.flatMap((message) =>
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content,
  );
  return { role: 'assistant', content };
}

function systemText(system: SystemPrompt): string {
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n\n');
}

function stopReasonOf(response: OpenAI.Responses.Response): ChatStopReason {
  if (response.output.some((item) => item.type === 'function_call')) return 'tool-use';
  if (response.status === 'incomplete') {
    return response.incomplete_details?.reason === 'max_output_tokens' ? 'max-tokens' : 'other';
  }
  return response.status === 'completed' ? 'end-turn' : 'other';
}
