/**
 * The Chat Completions summary model of `agent-compact/openai`: the history sent as Chat
 * Completions messages to `client.chat.completions.create`, and the SDK-typed converters it uses.
 */
import type OpenAI from 'openai';
import { toOpenAIMessages } from '../../../core/conversation/openai-format.js';
import type { OpenAISystemRole } from '../../../core/conversation/openai-types.js';
import { CompactError } from '../../../core/model/errors.js';
import type { Conversation } from '../../../core/model/messages.js';
import type {
  SummaryCallOptions,
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

/** What {@link createChatSummaryModel} is built from: the client and the options already settled. */
export interface ChatSummarySettings {
  sdk: OpenAI;
  model: string;
  policy: SummaryRetryPolicy;
  maxTokens?: number | undefined;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  systemRole: OpenAISystemRole;
  contextWindow?: number | undefined;
  tools?: readonly OpenAI.ChatCompletionTool[] | undefined;
}

/** A {@link SummaryModel} that sends the history as Chat Completions messages. */
export function createChatSummaryModel(settings: ChatSummarySettings): SummaryModel {
  const {
    sdk,
    model,
    policy,
    maxTokens,
    maxTokensField,
    systemRole,
    contextWindow,
    tools: chatTools,
  } = settings;
  return {
    specificationVersion: 'v1',
    provider: 'openai',
    modelId: model,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    async summarize(request: SummaryRequest, { signal }: SummaryCallOptions = {}): Promise<SummaryResult> {
      const bound = Math.max(1, Math.min(request.maxOutputTokens, maxTokens ?? Number.POSITIVE_INFINITY));
      const params: OpenAI.ChatCompletionCreateParamsNonStreaming = {
        model,
        messages: toChatCompletionMessages(
          { ...(request.system === undefined ? {} : { system: request.system }), messages: request.messages },
          { systemRole },
        ),
        [maxTokensField]: bound,
        ...(chatTools && chatTools.length > 0 ? { tools: [...chatTools], tool_choice: 'none' as const } : {}),
      };
      const completion = await callWithRetries({
        provider: 'openai',
        policy,
        ...(signal === undefined ? {} : { signal }),
        describeError: describeSdkError,
        attempt: (attemptSignal) =>
          // The SDK's own timeout is a backstop; the retry loop's timeout fires first.
          sdk.chat.completions.create(params, {
            signal: attemptSignal,
            maxRetries: 0,
            timeout: policy.timeoutMs + 1000,
          }),
      });
      return resultFromCompletion(completion, bound);
    },
  };
}

function resultFromCompletion(completion: OpenAI.ChatCompletion, maxTokens: number): SummaryResult {
  const usage = summaryUsageFromOpenAI(completion.usage);
  const choice = completion.choices[0];
  const message = choice?.message;
  const text = typeof message?.content === 'string' ? message.content.trim() : '';
  if (text === '') {
    const what = message?.refusal
      ? `a refusal: ${message.refusal}`
      : message?.tool_calls?.length
        ? `${message.tool_calls.length} tool calls`
        : 'no content';
    throw new CompactError(
      `openai summary answer has no text (${what}; finish_reason ${choice?.finish_reason ?? 'none'})`,
      {
        code: 'SUMMARY_FAILED',
      },
    );
  }
  // A provider never writes more than it was allowed; an answer that claims to is broken.
  if (usage.outputTokens !== undefined && usage.outputTokens > maxTokens) {
    throw new CompactError(
      `openai summary answer is ${usage.outputTokens} tokens, more than the ${maxTokens} asked for`,
      {
        code: 'SUMMARY_FAILED',
      },
    );
  }
  return { text, usage };
}

/** Converts the SDK's usage to a {@link SummaryUsage}; a count that is no token count is left out. */
export function summaryUsageFromOpenAI(usage: OpenAI.CompletionUsage | undefined | null): SummaryUsage {
  if (!usage) return {};
  return summaryUsageOf({
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    cacheReadTokens: usage.prompt_tokens_details?.cached_tokens,
  });
}

/**
 * Converts a canonical conversation to Chat Completions messages typed with the SDK's own
 * `ChatCompletionMessageParam` (see the core's `toOpenAIMessages` for what each side cannot express).
 *
 * @example
 * const messages = toChatCompletionMessages({ system: 'Be brief.', messages: conversation.messages });
 * await client.chat.completions.create({ model: 'gpt-5-mini', messages });
 */
export function toChatCompletionMessages(
  conversation: Conversation,
  options: { systemRole?: OpenAISystemRole } = {},
): OpenAI.ChatCompletionMessageParam[] {
  // The core's types are declared structurally compatible with the SDK's.
  return toOpenAIMessages(conversation, options) as OpenAI.ChatCompletionMessageParam[];
}
