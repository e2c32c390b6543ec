/** Test doubles of the AI SDK tests: a language model over fetch that speaks OpenAI Chat Completions. */
import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Content,
  type LanguageModelV3GenerateResult,
} from '@ai-sdk/provider';
import { toOpenAIMessages } from '../core/conversation/openai-format.js';
import {
  leadingSystemCount,
  PromptOrigins,
  systemFromMessages,
  toCanonicalMessages,
} from './prompt-conversion.js';

/** A usage report of `input` prompt tokens and `output` completion tokens. */
export const usage = (input: number, output = 10): LanguageModelV3GenerateResult['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** The usage of an answer that reports none, so the compactor counts each prompt itself. */
export const noUsage: LanguageModelV3GenerateResult['usage'] = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/** A mock model's text answer without usage, so the compactor counts each prompt itself. */
export function textWithoutUsage(text: string): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: noUsage,
    warnings: [],
  };
}

/** A minimal LanguageModelV3 over fetch that speaks OpenAI Chat Completions (no provider package needed). */
export function chatCompletionsModel(baseURL: string): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'scripted-openai',
    modelId: 'agent-model',
    supportedUrls: {},
    async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
      const systemCount = leadingSystemCount(options.prompt);
      const system = systemFromMessages(options.prompt.slice(0, systemCount));
      const messages = toCanonicalMessages(options.prompt.slice(systemCount), new PromptOrigins());
      const tools = (options.tools ?? []).flatMap((definition) =>
        definition.type === 'function'
          ? [{ type: 'function', function: { name: definition.name, parameters: definition.inputSchema } }]
          : [],
      );
      const response = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer test' },
        body: JSON.stringify({
          model: 'agent-model',
          messages: toOpenAIMessages({ ...(system === undefined ? {} : { system }), messages }),
          ...(tools.length > 0 ? { tools } : {}),
        }),
        ...(options.abortSignal ? { signal: options.abortSignal } : {}),
      });
      const body = (await response.json()) as {
        error?: { message: string };
        choices: {
          message: {
            content: string | null;
            tool_calls?: { id: string; function: { name: string; arguments: string } }[];
          };
        }[];
        usage: { prompt_tokens: number; completion_tokens: number };
      };
      if (!response.ok) {
        // As the provider packages throw it: the AI SDK retries a 429 or 5xx (`maxRetries`).
        throw new APICallError({
          message: `HTTP ${response.status}: ${body.error?.message}`,
          url: `${baseURL}/chat/completions`,
          requestBodyValues: {},
          statusCode: response.status,
          responseHeaders: Object.fromEntries(response.headers),
          isRetryable: response.status === 429 || response.status >= 500,
        });
      }
      const message = body.choices[0]?.message;
      const content: LanguageModelV3Content[] = [];
      if (message?.content) content.push({ type: 'text', text: message.content });
      for (const call of message?.tool_calls ?? []) {
        content.push({
          type: 'tool-call',
          toolCallId: call.id,
          toolName: call.function.name,
          input: call.function.arguments,
        });
      }
      return {
        content,
        finishReason: message?.tool_calls
          ? { unified: 'tool-calls', raw: 'tool_calls' }
          : { unified: 'stop', raw: 'stop' },
        usage: usage(body.usage.prompt_tokens, body.usage.completion_tokens),
        warnings: [],
      };
    },
    doStream() {
      throw new Error('not used');
    },
  };
}
