import type { Message, ProviderUsage, SystemPrompt } from 'agent-compact';
import type { AgentToolDefinition } from './tool-definitions.js';

/** One request of the agent loop to its model. */
export interface ChatRequest {
  system: SystemPrompt;
  /** The (compacted) conversation; ends with a user message. */
  messages: readonly Message[];
  /** The tools the model may call. */
  tools: readonly AgentToolDefinition[];
  /** The upper bound for the answer. */
  maxOutputTokens: number;
  /** `none` forbids tool calls (summary requests); the tools are still sent, as the history needs them. @default 'auto' */
  toolChoice?: 'auto' | 'none';
}

/** Why the model stopped. */
export type ChatStopReason = 'end-turn' | 'tool-use' | 'max-tokens' | 'other';

/** The model's answer. */
export interface ChatResponse {
  /** The assistant message, in the canonical (Anthropic-shaped) model. */
  message: Message;
  stopReason: ChatStopReason;
  /** Usage the provider reported; anchors the next `maybeCompact`. */
  usage?: ProviderUsage;
}

/**
 * The small model contract of the agent loop. {@link createAnthropicChatModel} and
 * {@link createOpenAIChatModel} implement it over the official SDKs; tests may implement it too.
 */
export interface ChatModel {
  readonly specificationVersion: 'v1';
  /** `anthropic`, `openai`, or a test double's name. */
  readonly provider: string;
  readonly modelId: string;
  /** Sends one request. Rejects with {@link ModelCallError}. */
  generate(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResponse>;
}

/** Why a model call failed. */
export type ModelCallFailure =
  /** The server could not be reached (refused, DNS, timeout). */
  | 'unreachable'
  /** The server answered with an error status (bad key, bad request, overloaded after retries). */
  | 'rejected'
  /** The caller aborted (Ctrl-C). */
  | 'aborted';

/** A failed model call, with a one-line message fit for the terminal. */
export class ModelCallError extends Error {
  constructor(
    message: string,
    readonly failure: ModelCallFailure,
    options: { cause?: unknown; status?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status;
  }
  /** HTTP status, when the server answered. */
  readonly status: number | undefined;
}

/** Maps an SDK error (both SDKs share the shape) to a {@link ModelCallError}. */
export function toModelCallError(error: unknown, provider: string, baseURL: string): ModelCallError {
  if (error instanceof ModelCallError) return error;
  const name = (error as { constructor?: { name?: string } } | null)?.constructor?.name ?? '';
  const status = (error as { status?: unknown } | null)?.status;
  if (name === 'APIUserAbortError' || (error as { name?: unknown } | null)?.name === 'AbortError') {
    return new ModelCallError(`${provider} request aborted`, 'aborted', { cause: error });
  }
  if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') {
    const cause = (error as { cause?: { message?: string; code?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? (error as Error).message;
    return new ModelCallError(
      `cannot reach the ${provider} server at ${baseURL} (${detail})`,
      'unreachable',
      {
        cause: error,
      },
    );
  }
  if (typeof status === 'number') {
    const text = firstLine(error instanceof Error ? error.message : String(error));
    return new ModelCallError(`${provider} server answered ${status}: ${text}`, 'rejected', {
      cause: error,
      status,
    });
  }
  return new ModelCallError(
    `${provider} request failed: ${firstLine(error instanceof Error ? error.message : String(error))}`,
    'rejected',
    { cause: error },
  );
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
