/**
 * Which provider API a whole request body is written for, read from the body's own fields.
 */
import { CompactError } from '../model/errors.js';
import type { WireFormat } from '../model/wire-format.js';
import { detectFormat } from '../wire/detect-format.js';
import { isGeminiRequest } from '../wire/gemini/gemini-request.js';

/**
 * The API a whole request body is written for.
 * @deprecated Use `WireFormat` (from `agent-compact/wire`): the same union under its one name.
 */
export type RequestFormat = WireFormat;

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
  if (!isPlainObject(body)) {
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
    if (!isPlainObject(tool)) continue;
    if (Object.hasOwn(tool, 'input_schema')) return 'anthropic';
    if (tool.type === 'function' && isPlainObject(tool.function)) return 'openai';
  }
  return undefined;
}

/** True for a JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON type of a value, for error messages. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
