/**
 * The checks the Anthropic and OpenAI APIs make before they answer — route, JSON, key, request
 * shape, then the conversation's rules — each failing with the provider's own 4xx error shape.
 */
import type { IncomingMessage } from 'node:http';
import { allowsSystemMessages, validateMessages } from '../core/conversation/validate.js';
import { unknownContentType } from './_content-types.js';
import { checkResponsesRequest } from './_responses-request.js';
import { invalidRequest, type WireError } from './_wire.js';
import type { ResponseOutcome, ScriptedApi } from './script.js';

/** A request that cannot get a scripted answer, or its parsed body. */
export type ScreenedRequest =
  | {
      kind: 'reject';
      body: Record<string, unknown>;
      stream: boolean;
      outcome: ResponseOutcome;
      error: WireError;
    }
  | { kind: 'accept'; body: Record<string, unknown>; stream: boolean };

/** The provider's checks before an answer, in its order: route, JSON, key, request rules. */
export function screenRequest(
  incoming: IncomingMessage,
  {
    path,
    api,
    rawBody,
    validation,
    countOnly,
  }: {
    path: string;
    api: ScriptedApi;
    rawBody: string;
    validation: 'provider-rules' | 'off';
    countOnly: boolean;
  },
): ScreenedRequest {
  const method = incoming.method ?? 'GET';
  const knownPath =
    method === 'POST' &&
    (path === '/v1/messages' || path === '/v1/chat/completions' || path === '/v1/responses' || countOnly);
  if (!knownPath) {
    const error: WireError = {
      status: 404,
      message: `scripted model server: no route for ${method} ${path}`,
      anthropicType: 'not_found_error',
      openAIType: 'invalid_request_error',
    };
    return { kind: 'reject', body: {}, stream: false, outcome: 'not-found', error };
  }
  const body = parseJsonObject(rawBody);
  if (body === undefined) {
    const error = invalidRequest('The request body is not valid JSON.', 'body');
    return { kind: 'reject', body: {}, stream: false, outcome: 'invalid-request', error };
  }
  const stream = body.stream === true;
  if (!hasApiKey(incoming)) {
    const error: WireError = {
      status: 401,
      message: api === 'anthropic' ? 'invalid x-api-key' : "You didn't provide an API key.",
      anthropicType: 'authentication_error',
      openAIType: 'invalid_request_error',
      code: api === 'openai' ? 'invalid_api_key' : null,
    };
    return { kind: 'reject', body, stream, outcome: 'unauthorized', error };
  }
  const shapeError =
    api === 'responses'
      ? checkResponsesRequest(body, validation)
      : checkRequestShape(api, body, incoming, validation, countOnly);
  if (shapeError) return { kind: 'reject', body, stream, outcome: 'invalid-request', error: shapeError };
  return { kind: 'accept', body, stream };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    return isObject ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function hasApiKey(incoming: IncomingMessage): boolean {
  const key = incoming.headers['x-api-key'] ?? incoming.headers['api-key'] ?? incoming.headers.authorization;
  return typeof key === 'string' && key.trim() !== '' && key.trim() !== 'Bearer';
}

export function promptTooLong(api: ScriptedApi, tokens: number, contextWindow: number): WireError {
  return api === 'anthropic'
    ? invalidRequest(`prompt is too long: ${tokens} tokens > ${contextWindow} maximum`, null)
    : {
        ...invalidRequest(
          `This model's maximum context length is ${contextWindow} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
          'messages',
        ),
        code: 'context_length_exceeded',
      };
}

export function countCacheControl(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countCacheControl(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  const own = (value as { cache_control?: unknown }).cache_control ? 1 : 0;
  return own + Object.values(value).reduce((sum: number, item) => sum + countCacheControl(item), 0);
}

/** The checks the provider makes before it looks at the conversation, then the conversation itself. */
function checkRequestShape(
  api: ScriptedApi,
  body: Record<string, unknown>,
  incoming: IncomingMessage,
  validation: 'provider-rules' | 'off',
  countOnly: boolean,
): WireError | undefined {
  if (api === 'anthropic') {
    if (typeof incoming.headers['anthropic-version'] !== 'string') {
      return invalidRequest('anthropic-version: header is required', null);
    }
    if (typeof body.model !== 'string' || body.model === '')
      return invalidRequest('model: Field required', 'model');
    const maxTokensValid =
      typeof body.max_tokens === 'number' && Number.isInteger(body.max_tokens) && body.max_tokens >= 1;
    if (!countOnly && !maxTokensValid) {
      return invalidRequest('max_tokens: Field required', 'max_tokens');
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return invalidRequest('messages: at least one message is required', 'messages');
    }
  } else {
    if (typeof body.model !== 'string' || body.model === '') {
      return invalidRequest('you must provide a model parameter', null);
    }
    if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
      return {
        ...invalidRequest(
          "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
          'stream_options',
        ),
        code: 'invalid_value',
      };
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return {
        ...invalidRequest("Missing required parameter: 'messages'.", 'messages'),
        code: 'missing_required_parameter',
      };
    }
  }
  if (api === 'anthropic') {
    const breakpoints = countCacheControl([body.tools, body.system, body.messages]);
    if (breakpoints > 4) {
      return invalidRequest(
        `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`,
        null,
      );
    }
  }
  if (validation === 'off') return undefined;
  const unknown = unknownContentType(api, body.messages);
  if (unknown) {
    return api === 'anthropic'
      ? invalidRequest(
          `${unknown.path}: Input tag '${unknown.type}' found using 'type' does not match any of the expected tags`,
          unknown.path,
        )
      : {
          ...invalidRequest(
            `Invalid value: '${unknown.type}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.`,
            `${unknown.path}.type`,
          ),
          code: 'invalid_value',
        };
  }
  const problems = validateMessages(body.messages, {
    format: api,
    ...(api === 'anthropic' && body.system !== undefined ? { system: body.system } : {}),
    // Mid-conversation system messages are accepted only under their beta, as the API does.
    ...(api === 'anthropic' && allowsSystemMessages(incoming.headers['anthropic-beta'])
      ? { systemMessages: true }
      : {}),
  });
  const [first] = problems;
  if (!first) return undefined;
  return api === 'anthropic'
    ? invalidRequest(`${first.path}: ${first.message}`, first.path)
    : {
        ...invalidRequest(`Invalid parameter: ${first.path}: ${first.message}`, first.path),
        code: 'invalid_value',
      };
}
