import type { Content, GenerateContentConfig, GenerateContentResponse, GoogleGenAI } from '@google/genai';
import type { Message, ProviderUsage, SystemPrompt } from 'agent-compact';
import type { GeminiPart } from 'agent-compact/wire';
import { fromGeminiContents, toGeminiContents } from 'agent-compact/wire';
import { DEFAULT_SDK_TIMEOUT_MS, withChildSignal } from '../../_sdk-client.js';
import { type ChatModel, type ChatRequest, type ChatStopReason, toModelCallError } from '../../chat-model.js';

/**
 * What this model needs of a `GoogleGenAI` client from `@google/genai`, written out so that code
 * compiling against `agent-compact/agent` needs the Gemini SDK's types only when it uses Gemini.
 */
export interface GeminiClient {
  models: { generateContent(request: never): Promise<unknown> };
}

/** Options of {@link createGeminiChatModel}. */
export interface GeminiChatModelOptions {
  /** The model id, e.g. `gemini-2.5-pro`. */
  model: string;
  /** The API key. Ignored when `client` is given. */
  apiKey?: string;
  /** Another server speaking the Gemini API. @default https://generativelanguage.googleapis.com */
  baseURL?: string;
  /** A ready `GoogleGenAI` client; `apiKey` and `baseURL` are then ignored. */
  client?: GeminiClient;
  /** Per-request timeout in milliseconds. @default 600000 */
  timeoutMs?: number;
}

/**
 * A {@link ChatModel} over the Gemini API (`models.generateContent`, `@google/genai`). The model's
 * parts, thought signatures included, go back in the next request exactly as they came; calls the
 * API returns without an `id` get one, so every call of the session is told apart.
 *
 * @example
 * const model = createGeminiChatModel({ model: 'gemini-2.5-pro', apiKey: process.env.GEMINI_API_KEY });
 */
export function createGeminiChatModel({
  model,
  apiKey,
  baseURL,
  client,
  timeoutMs = DEFAULT_SDK_TIMEOUT_MS,
}: GeminiChatModelOptions): ChatModel {
  let ready: Promise<GoogleGenAI> | undefined;
  const getClient = () => {
    ready ??= client
      ? Promise.resolve(client as unknown as GoogleGenAI)
      : import('@google/genai').then(
          ({ GoogleGenAI }) =>
            new GoogleGenAI({
              ...(apiKey === undefined ? {} : { apiKey }),
              httpOptions: {
                ...(baseURL === undefined ? {} : { baseUrl: baseURL }),
                apiVersion: 'v1beta',
                timeout: timeoutMs,
              },
            }),
        );
    return ready;
  };
  let answers = 0;
  return {
    specificationVersion: 'v1',
    provider: 'gemini',
    modelId: model,
    async generate({ system, messages, tools, maxOutputTokens, toolChoice = 'auto' }, { signal } = {}) {
      const sdk = await getClient();
      let response: GenerateContentResponse;
      try {
        response = await withChildSignal(signal, (callSignal) =>
          sdk.models.generateContent({
            model,
            contents: toGeminiContents(messages) as Content[],
            config: {
              ...generateConfig({ system, tools, maxOutputTokens, toolChoice }),
              abortSignal: callSignal,
            },
          }),
        );
      } catch (error) {
        throw toModelCallError(error, 'gemini', baseURL ?? 'https://generativelanguage.googleapis.com');
      }
      answers += 1;
      return {
        message: assistantMessage(response, answers),
        stopReason: stopReasonOf(response),
        usage: usageOf(response),
      };
    },
  };
}

/** The call's settings: the system prompt, the answer's bound and the tools, callable or not. */
function generateConfig({
  system,
  tools,
  maxOutputTokens,
  toolChoice,
}: Omit<ChatRequest, 'messages'>): GenerateContentConfig {
  return {
    systemInstruction: systemText(system),
    maxOutputTokens,
    ...(tools.length > 0
      ? {
          tools: [
            {
              functionDeclarations: tools.map((tool) => ({
                name: tool.name,
                description: tool.description,
                parametersJsonSchema: tool.inputSchema,
              })),
            },
          ],
        }
      : {}),
    ...(tools.length > 0 && toolChoice === 'none'
      ? { toolConfig: { functionCallingConfig: { mode: 'NONE' as never } } }
      : {}),
  };
}

/** The candidate as one canonical assistant message; calls without an id get `gemini_<answer>_<n>`. */
function assistantMessage(response: GenerateContentResponse, answer: number): Message {
  const parts = (response.candidates?.[0]?.content?.parts ?? []) as GeminiPart[];
  const withIds = parts.map((part, index) =>
    part.functionCall && typeof part.functionCall.id !== 'string'
      ? { ...part, functionCall: { id: `gemini_${answer}_${index}`, ...part.functionCall } }
      : part,
  );
  const [message] = fromGeminiContents([{ role: 'model', parts: withIds }]).messages;
  return message ?? { role: 'assistant', content: [] };
}

function stopReasonOf(response: GenerateContentResponse): ChatStopReason {
  const candidate = response.candidates?.[0];
  if (candidate?.content?.parts?.some((part) => part.functionCall)) return 'tool-use';
  if (candidate?.finishReason === 'MAX_TOKENS') return 'max-tokens';
  return candidate?.finishReason === 'STOP' ? 'end-turn' : 'other';
}

function usageOf(response: GenerateContentResponse): ProviderUsage | undefined {
  const usage = response.usageMetadata;
  if (usage?.promptTokenCount === undefined) return undefined;
  return { promptTokenCount: usage.promptTokenCount, output_tokens: usage.candidatesTokenCount ?? 0 };
}

function systemText(system: SystemPrompt): string {
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n\n');
}
