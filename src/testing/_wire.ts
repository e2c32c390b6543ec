/**
 * What the scripted server's format writers share (./wire/<format>/): the answer they write, in no
 * format's shape, the error details, and the OpenAI error shape two formats use.
 */
import type { ServerResponse } from 'node:http';

/** A content block of a scripted answer. */
export type AnswerBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** Why a scripted answer ended. */
export type AnswerStop = 'end_turn' | 'tool_use' | 'max_tokens';

/** A scripted answer, independent of the wire format. */
export interface Answer {
  id: string;
  model: string;
  blocks: AnswerBlock[];
  stop: AnswerStop;
  usage: {
    inputTokens: number;
    uncachedTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    outputTokens: number;
  };
  /** Whether the Anthropic answer reports the cache fields (only when the request used cache_control). */
  reportCacheFields: boolean;
  /** OpenAI: whether the stream ends with a usage chunk. */
  includeStreamUsage: boolean;
}

/** Splits text into the small pieces a model streams. */
export function streamPieces(text: string): string[] {
  const pieces = text.match(/\S*\s*/g)?.filter((piece) => piece.length > 0) ?? [];
  return pieces.length > 0 ? pieces : [text];
}

/** The details of an error answer. */
export interface WireError {
  status: number;
  message: string;
  /** Anthropic `error.type`. */
  anthropicType:
    | 'invalid_request_error'
    | 'authentication_error'
    | 'not_found_error'
    | 'rate_limit_error'
    | 'api_error'
    | 'overloaded_error';
  /** OpenAI `error.type`. */
  openAIType: 'invalid_request_error' | 'requests' | 'server_error';
  /** OpenAI `error.param`. */
  param?: string | null;
  /** OpenAI `error.code`. */
  code?: string | null;
  headers?: Record<string, string>;
}

/** A 400 for a request the provider refuses, in the shape both providers share. */
export function invalidRequest(message: string, param: string | null, code: string | null = null): WireError {
  return {
    status: 400,
    message,
    anthropicType: 'invalid_request_error',
    openAIType: 'invalid_request_error',
    param,
    code,
  };
}

/** The error body of the OpenAI APIs (Chat Completions and Responses share it). */
export function openAIErrorBody(error: WireError): Record<string, unknown> {
  return {
    error: {
      message: error.message,
      type: error.openAIType,
      param: error.param ?? null,
      code: error.code ?? null,
    },
  };
}

/** The 400 the OpenAI APIs send for a prompt over the context window. */
export function openAIPromptTooLong(tokens: number, contextWindow: number): WireError {
  return {
    ...invalidRequest(
      `This model's maximum context length is ${contextWindow} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      'messages',
    ),
    code: 'context_length_exceeded',
  };
}

/** Writes an error as `errorBody` (the format's own JSON shape) puts it. */
export function writeError(
  response: ServerResponse,
  errorBody: (error: WireError) => Record<string, unknown>,
  error: WireError,
): void {
  response.writeHead(error.status, { 'content-type': 'application/json', ...error.headers });
  response.end(JSON.stringify(errorBody(error)));
}
