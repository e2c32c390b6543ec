/**
 * The summary model over the OpenAI Responses API (`client.responses.create`), and conversions
 * between the canonical model and the SDK's Responses types.
 */
import type OpenAI from 'openai';
import type { ResponsesInputItem } from '../../../core/conversation/responses-types.js';
import { CompactError } from '../../../core/model/errors.js';
import type { Conversation, Message, SystemPrompt } from '../../../core/model/messages.js';
import type {
  SummaryModel,
  SummaryRequest,
  SummaryResult,
  SummaryUsage,
} from '../../../core/summary/summary-model.js';
import {
  callWithRetries,
  describeSdkError,
  type SummaryRetryPolicy,
} from '../../../core/summary/summary-retry.js';
import { summaryUsageOf } from '../../../core/summary/summary-usage.js';
import { fromResponsesInput, toResponsesInput } from '../../../core/wire/responses/responses-format.js';

/** The API's smallest `max_output_tokens`. */
const MIN_OUTPUT_TOKENS = 16;

/** Item types a summarizer can do nothing with: opaque, or pointing at stored items it cannot see. */
const unreadableItemTypes = new Set(['reasoning', 'compaction', 'item_reference']);

/** What the Responses summary model needs from {@link createOpenAISummaryModel}'s options. */
export interface ResponsesSummarySettings {
  sdk: OpenAI;
  model: string;
  policy: SummaryRetryPolicy;
  maxTokens?: number | undefined;
  contextWindow?: number | undefined;
  tools?: readonly OpenAI.Responses.Tool[] | undefined;
}

/** A {@link SummaryModel} that sends the history as Responses `input` with `store: false`. */
export function createResponsesSummaryModel(settings: ResponsesSummarySettings): SummaryModel {
  const { sdk, model, policy, maxTokens, contextWindow, tools } = settings;
  return {
    specificationVersion: 'v1',
    provider: 'openai-responses',
    modelId: model,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    async summarize(request: SummaryRequest, { signal } = {}): Promise<SummaryResult> {
      const bound = Math.max(
        MIN_OUTPUT_TOKENS,
        Math.min(request.maxOutputTokens, maxTokens ?? Number.POSITIVE_INFINITY),
      );
      const instructions = systemText(request.system);
      const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
        model,
        ...(instructions === undefined ? {} : { instructions }),
        input: toResponsesInputParams(request.messages).filter(
          (item) => !unreadableItemTypes.has(String(item.type)),
        ),
        max_output_tokens: bound,
        store: false,
        ...(tools && tools.length > 0 ? { tools: [...tools], tool_choice: 'none' as const } : {}),
      };
      const response = await callWithRetries({
        provider: 'openai-responses',
        policy,
        ...(signal === undefined ? {} : { signal }),
        describeError: describeSdkError,
        attempt: (attemptSignal) =>
          sdk.responses.create(params, {
            signal: attemptSignal,
            maxRetries: 0,
            timeout: policy.timeoutMs + 1000,
          }),
      });
      return resultFromResponse(response);
    },
  };
}

function resultFromResponse(response: OpenAI.Responses.Response): SummaryResult {
  const text = response.output_text.trim();
  if (text === '') {
    const kinds = response.output.map((item) => item.type).join(', ') || 'no output';
    const reason = response.incomplete_details?.reason;
    throw new CompactError(
      `openai-responses summary answer has no text (${kinds}; status ${response.status ?? 'unknown'}${reason ? `, ${reason}` : ''})`,
      { code: 'SUMMARY_FAILED' },
    );
  }
  return { text, usage: summaryUsageFromResponses(response.usage) };
}

/** The system prompt as Responses `instructions` (text blocks joined by a blank line). */
function systemText(system: SystemPrompt | undefined): string | undefined {
  if (system === undefined) return undefined;
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n\n');
}

/** Converts the SDK's Responses usage to a {@link SummaryUsage}; a count that is no token count is left out. */
export function summaryUsageFromResponses(
  usage: OpenAI.Responses.ResponseUsage | undefined | null,
): SummaryUsage {
  if (!usage) return {};
  return summaryUsageOf({
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadTokens: usage.input_tokens_details?.cached_tokens,
  });
}

/**
 * Converts canonical messages to Responses input items typed with the SDK's own
 * `ResponseInputItem` (see the core's `toResponsesInput`).
 *
 * @example
 * const input = toResponsesInputParams(conversation.messages);
 * await client.responses.create({ model: 'gpt-5', instructions, input });
 */
export function toResponsesInputParams(
  messages: readonly Message[],
  system?: SystemPrompt,
): OpenAI.Responses.ResponseInputItem[] {
  // The core's types are declared structurally compatible with the SDK's.
  return toResponsesInput(messages, system) as OpenAI.Responses.ResponseInputItem[];
}

/**
 * Converts Responses input items (a request's `input`, or a response's `output`) to the canonical
 * model; `instructions` become the system prompt.
 *
 * @example
 * const response = await client.responses.create({ model, input });
 * const { messages } = fromResponsesInputParams([...input, ...response.output]);
 */
export function fromResponsesInputParams(
  input: string | readonly (OpenAI.Responses.ResponseInputItem | OpenAI.Responses.ResponseOutputItem)[],
  instructions?: string | null,
): Conversation {
  const items = typeof input === 'string' ? input : (input as unknown as ResponsesInputItem[]);
  const { messages, system } = fromResponsesInput(items, { instructions });
  return system === undefined ? { messages } : { system, messages };
}
