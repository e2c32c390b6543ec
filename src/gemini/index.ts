/**
 * The summary model over the official Google Gen AI SDK (`@google/genai`, an optional peer
 * dependency), for the Gemini API.
 *
 * @module agent-compact/gemini
 */

import { type Content, type GenerateContentResponse, GoogleGenAI } from '@google/genai';
import { checkSummaryModelOptions } from '../core/check-options.js';
import { CompactError } from '../core/model/errors.js';
import type { Message } from '../core/model/messages.js';
import type {
  SummaryCallOptions,
  SummaryModel,
  SummaryRequest,
  SummaryResult,
} from '../core/summary/summary-model.js';
import {
  callWithRetries,
  describeSdkError,
  type SummaryRetryOptions,
  summaryRetryPolicy,
} from '../core/summary/summary-retry.js';
import { summaryUsageOf, tokenCount } from '../core/summary/summary-usage.js';
import { toGeminiContents } from '../core/wire/gemini/gemini-write.js';

/** Options of {@link createGeminiSummaryModel}. */
export interface GeminiSummaryModelOptions extends SummaryRetryOptions {
  /** The model that writes summaries, e.g. `gemini-2.5-flash`. */
  model: string;
  /** An SDK client to use. When absent, one is created from `apiKey` and `baseURL`. */
  client?: GoogleGenAI;
  /** The API key for a new client. @default the SDK's own default (`GEMINI_API_KEY`) */
  apiKey?: string;
  /** The API origin for a new client, e.g. a proxy or the scripted test server. */
  baseURL?: string;
  /** Upper bound for the summary's length; the request's own bound is used when smaller. */
  maxTokens?: number;
  /** The summarizer's context window in tokens; longer histories are summarized in chunks. */
  contextWindow?: number;
}

/**
 * Creates a {@link SummaryModel} over the Gemini API (`models.generateContent`).
 *
 * The history is sent as Gemini `contents` (thinking of other providers left out: its signatures
 * mean nothing to Gemini); the tools it used are declared by name with function calling off, as
 * the API wants calls in the history declared. 429, 5xx, timeouts and dropped connections are
 * retried with exponential backoff; when every try fails, or the answer is empty, it throws
 * `CompactError` with code `SUMMARY_FAILED`, and the compactor's extractive fallback takes over.
 *
 * @example
 * import { createCompactor } from 'agent-compact';
 * import { createGeminiSummaryModel } from 'agent-compact/gemini';
 *
 * const summarizer = createGeminiSummaryModel({ model: 'gemini-2.5-flash', maxTokens: 2000 });
 * const compactor = createCompactor({ summarizer });
 */
export function createGeminiSummaryModel(options: GeminiSummaryModelOptions): SummaryModel {
  checkSummaryModelOptions(options);
  const { model, client, apiKey, baseURL, maxTokens, contextWindow, ...retryOptions } = options;
  const sdk =
    client ??
    new GoogleGenAI({
      ...(apiKey === undefined ? {} : { apiKey }),
      // The retry loop below retries, so the SDK must not retry on its own.
      httpOptions: {
        ...(baseURL === undefined ? {} : { baseUrl: baseURL }),
        apiVersion: 'v1beta',
        retryOptions: { attempts: 1 },
      },
    });
  const policy = summaryRetryPolicy(retryOptions);
  return {
    specificationVersion: 'v1',
    provider: 'gemini',
    modelId: model,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    async summarize(request: SummaryRequest, { signal }: SummaryCallOptions = {}): Promise<SummaryResult> {
      const limit = Math.max(1, Math.min(request.maxOutputTokens, maxTokens ?? Number.POSITIVE_INFINITY));
      const answer = await callWithRetries({
        provider: 'gemini',
        policy,
        ...(signal === undefined ? {} : { signal }),
        describeError: describeSdkError,
        attempt: (attemptSignal) =>
          sdk.models.generateContent({
            model,
            // Our wire types are structural JSON; the SDK's enums type the same strings.
            contents: toGeminiContents(withoutThinking(request.messages)) as Content[],
            config: { ...summaryConfig(request, limit), abortSignal: attemptSignal },
          }),
      });
      return resultFromAnswer(answer);
    },
  };
}

function summaryConfig(request: SummaryRequest, maxOutputTokens: number) {
  const system =
    typeof request.system === 'string'
      ? request.system
      : request.system?.map((block) => block.text).join('\n');
  const names = new Set<string>();
  for (const message of request.messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) if (block.type === 'tool_use') names.add(String(block.name));
  }
  return {
    maxOutputTokens,
    ...(system ? { systemInstruction: system } : {}),
    ...(names.size === 0
      ? {}
      : {
          tools: [
            {
              functionDeclarations: [...names].map((name) => ({ name, description: 'A tool used earlier.' })),
            },
          ],
          toolConfig: { functionCallingConfig: { mode: 'NONE' as never } },
        }),
  };
}

/** The messages without thinking blocks (another provider's signatures would be refused). */
function withoutThinking(messages: readonly Message[]): Message[] {
  return messages
    .map((message) =>
      typeof message.content === 'string'
        ? message
        : {
            ...message,
            content: message.content.filter(
              (block) => block.type !== 'thinking' && block.type !== 'redacted_thinking',
            ),
          },
    )
    .filter((message) => typeof message.content === 'string' || message.content.length > 0);
}

function resultFromAnswer(answer: GenerateContentResponse): SummaryResult {
  const parts = answer.candidates?.[0]?.content?.parts ?? [];
  const text = parts
    .filter((part) => typeof part.text === 'string' && part.thought !== true)
    .map((part) => part.text)
    .join('')
    .trim();
  if (text === '') {
    const reason = answer.candidates?.[0]?.finishReason ?? 'no candidate';
    throw new CompactError(`gemini summary answer has no text (finishReason ${reason})`, {
      code: 'SUMMARY_FAILED',
    });
  }
  const usage = answer.usageMetadata;
  // Thoughts are output too; a count that is no token count adds nothing.
  const output =
    (tokenCount(usage?.candidatesTokenCount) ?? 0) + (tokenCount(usage?.thoughtsTokenCount) ?? 0);
  return {
    text,
    usage: summaryUsageOf({
      inputTokens: usage?.promptTokenCount,
      ...(output > 0 ? { outputTokens: output } : {}),
      cacheReadTokens: usage?.cachedContentTokenCount,
    }),
  };
}
