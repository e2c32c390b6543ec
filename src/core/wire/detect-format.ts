/** Telling a conversation's wire format from its messages alone, or a request's from its body. */

import { CompactError } from '../model/errors.js';
import type { WireFormat } from '../model/wire-format.js';
import { isObject, typeName } from './_internal/read-helpers.js';
import { isGeminiContent } from './gemini/gemini-conversation.js';
import { isGeminiRequest } from './gemini/gemini-request.js';
import { hasResponsesMark } from './responses/read-responses.js';

/**
 * Guesses the wire format of raw messages: a Responses item or a Gemini content says so; otherwise
 * Anthropic or OpenAI Chat by their roles and block types. Messages that only carry string content
 * are the same in both; they count as Anthropic.
 *
 * @example
 * detectFormat([{ role: 'tool', tool_call_id: 'call_1', content: 'ok' }]); // 'openai'
 */
export function detectFormat(messages: readonly unknown[]): WireFormat {
  if (messages.some(hasResponsesMark)) return 'responses';
  if (messages.some(isGeminiContent)) return 'gemini';
  for (const message of messages) {
    if (!isObject(message)) continue;
    const { role } = message;
    if (role === 'system' || role === 'developer' || role === 'tool') return 'openai';
    if (Object.hasOwn(message, 'tool_calls') || Object.hasOwn(message, 'tool_call_id')) return 'openai';
    if (message.content === null) return 'openai';
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (!isObject(part)) continue;
      const { type } = part;
      if (type === 'image_url' || type === 'input_audio' || type === 'file' || type === 'refusal')
        return 'openai';
      if (
        type === 'tool_use' ||
        type === 'tool_result' ||
        type === 'thinking' ||
        type === 'redacted_thinking'
      ) {
        return 'anthropic';
      }
      if (type === 'image' || type === 'document') return 'anthropic';
    }
  }
  return 'anthropic';
}

/** Top-level fields only the Anthropic Messages API has. */
const anthropicOnlyFields = ['system', 'thinking', 'context_management', 'anthropic_version', 'top_k'];

/** Top-level fields only OpenAI Chat Completions has. */
const openAIOnlyFields = [
  'max_completion_tokens',
  'response_format',
  'stream_options',
  'n',
  'logprobs',
  'presence_penalty',
  'frequency_penalty',
  'reasoning_effort',
  'parallel_tool_calls',
];

/**
 * Tells which API a whole request body is written for: a body with `input` and no `messages` is
 * OpenAI Responses; a body with `contents` is Gemini `generateContent`; a body with `messages` is Anthropic Messages or OpenAI Chat Completions, told
 * apart by the fields only one of them has, then by the tool definitions' shape, then by the
 * messages themselves (as {@link detectFormat}).
 *
 * @throws {CompactError} code `UNREADABLE_INPUT` when the body is not an object with `messages` or
 *   `input`.
 * @example
 * detectRequestFormat({ model: 'claude-sonnet-4-5', max_tokens: 1024, system: 'Be brief.', messages: [] }); // 'anthropic'
 * detectRequestFormat({ model: 'gpt-5', input: 'Hi' }); // 'responses'
 */
export function detectRequestFormat(body: unknown): WireFormat {
  if (!isObject(body)) {
    throw new CompactError(`expected a request body object, got ${typeName(body)}`, {
      code: 'UNREADABLE_INPUT',
    });
  }
  if (isGeminiRequest(body)) return 'gemini';
  if (!Object.hasOwn(body, 'messages')) {
    if (Object.hasOwn(body, 'input')) return 'responses';
    throw new CompactError('expected a request body with "messages", "input" or "contents"', {
      code: 'UNREADABLE_INPUT',
    });
  }
  if (!Array.isArray(body.messages)) {
    throw new CompactError(`expected an array, got ${typeName(body.messages)}`, {
      code: 'UNREADABLE_INPUT',
      path: 'messages',
    });
  }
  if (anthropicOnlyFields.some((field) => Object.hasOwn(body, field))) return 'anthropic';
  if (openAIOnlyFields.some((field) => Object.hasOwn(body, field))) return 'openai';
  const fromTools = formatOfTools(body.tools);
  return fromTools ?? detectFormat(body.messages);
}

/** The format the tool definitions are written in, when they say. */
function formatOfTools(tools: unknown): WireFormat | undefined {
  if (!Array.isArray(tools)) return undefined;
  for (const tool of tools) {
    if (!isObject(tool)) continue;
    if (Object.hasOwn(tool, 'input_schema')) return 'anthropic';
    if (tool.type === 'function' && isObject(tool.function)) return 'openai';
  }
  return undefined;
}
