/**
 * Reading and writing conversation files: a JSON object `{ "system"?, "messages": [...] }`, a bare
 * JSON array of messages, or JSONL (one message per line), in Anthropic or OpenAI shape.
 *
 * Every failure is a {@link CompactError} with code `UNREADABLE_INPUT` that says where:
 * `3:15` (line:column) for broken JSON, `line 4` for a broken JSONL line, a path such as
 * `messages[3].content` for a value of the wrong type. Unknown fields on messages and on known
 * blocks are dropped; unknown block types are kept as they are.
 */
import { CompactError } from '../errors.js';
import { geminiConversation, isGeminiContent, serializeGemini } from '../wire/gemini/gemini-conversation.js';
import { fromOpenAIMessages, type OpenAISystemRole, toOpenAIMessages } from './openai-format.js';
import type { OpenAIChatMessage, OpenAIContentPart, OpenAIToolCall } from './openai-types.js';
import { fromResponsesInput, RESPONSES_DATA_KEY, toResponsesInput } from './responses-format.js';
import type { ResponsesInputItem } from './responses-types.js';
import type {
  CacheControl,
  ContentBlock,
  Conversation,
  ImageBlock,
  Message,
  MessageFormat,
  SystemPrompt,
  TextBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from './types.js';
import { type ValidationRule, validateMessages } from './validate.js';

/** Deepest nesting accepted anywhere in the input; deeper input is refused with a clear error. */
export const MAX_NESTING_DEPTH = 500;

/** How the messages were laid out in the text. */
export type ConversationLayout = 'object' | 'array' | 'jsonl';

/** Options of {@link parseConversation}. */
export interface ParseConversationOptions {
  /** Force a format instead of detecting it. */
  format?: MessageFormat;
  /** Name of the input (usually a file path), put in front of error paths. */
  source?: string;
}

/** Options of {@link conversationFromValue}. */
export interface ConversationFromValueOptions extends ParseConversationOptions {
  /** JSONL only: the 1-based line number of each value, so errors can name the line. */
  lineNumbers?: readonly number[];
}

/** A parsed conversation and what it was read from. */
export interface ParsedConversation {
  /** The conversation in the canonical model. */
  conversation: Conversation;
  /** The format the input was in (detected or forced). */
  format: MessageFormat;
  /** How the input was laid out, so output can be written the same way. */
  layout: ConversationLayout;
  /** OpenAI input only: the role of its first system message. */
  systemRole?: OpenAISystemRole;
  /** OpenAI input only: the messages as read, in the input's order, so problems keep the input's paths. */
  openAIMessages?: OpenAIChatMessage[];
  /** Responses input only: the items as read, so problems keep the input's paths (`input[3]`). */
  responsesInput?: ResponsesInputItem[];
  /** Gemini input only: the contents as read, so problems keep the input's paths (`contents[3]`). */
  geminiContents?: unknown[];
}

/** Options of {@link serializeConversation}. */
export interface SerializeConversationOptions {
  /**
   * Write one message per line instead of one JSON object.
   * @default false
   */
  jsonl?: boolean;
  /**
   * OpenAI output only: the role the system prompt is written with.
   * @default 'system'
   */
  systemRole?: OpenAISystemRole;
}

type JsonObject = Record<string, unknown>;

/**
 * Parses a conversation from JSON or JSONL text, detecting Anthropic or OpenAI shape.
 *
 * @example
 * const { conversation, format } = parseConversation(
 *   '{"messages":[{"role":"user","content":"Hi"}]}',
 *   { source: 'chat.json' },
 * );
 */
export function parseConversation(text: string, options: ParseConversationOptions = {}): ParsedConversation {
  const { source } = options;
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') throw unreadable('the input is empty', undefined, source);

  const whole = tryParseJson(body);
  if (!whole.ok) {
    if (looksLikeJsonl(body)) {
      const lines = parseJsonLines(body, source);
      return conversationFromValue(lines.values, 'jsonl', { ...options, lineNumbers: lines.lineNumbers });
    }
    const where = whole.position === undefined ? undefined : lineAndColumn(body, whole.position);
    const location = where ? `${where.line}:${where.column}` : undefined;
    throw unreadable(`broken JSON: ${whole.reason}`, location, source, whole.error);
  }
  const { value } = whole;
  if (Array.isArray(value)) return conversationFromValue(value, 'array', options);
  if (!isObject(value)) {
    throw unreadable(
      `expected a JSON object with "messages", an array of messages or JSONL, got ${typeName(value)}`,
      undefined,
      source,
    );
  }
  if (Object.hasOwn(value, 'role') && !Object.hasOwn(value, 'messages')) {
    // A single message: JSONL with one line.
    return conversationFromValue([value], 'jsonl', { ...options, lineNumbers: [1] });
  }
  return conversationFromValue(value, 'object', options);
}

/**
 * Reads a conversation from values already parsed (for example JSONL lines read one by one).
 *
 * @example
 * const parsed = conversationFromValue(lines, 'jsonl', { source: 'big.jsonl' });
 */
export function conversationFromValue(
  value: unknown,
  layout: ConversationLayout,
  { format: forced, source, lineNumbers }: ConversationFromValueOptions = {},
): ParsedConversation {
  let format = forced;
  let rawSystem: unknown;
  let rawMessages: unknown[];
  // Where each message is named in errors: its JSONL line when known, else its index.
  let messagePath = (index: number): string => `messages[${index}]`;
  if (layout === 'jsonl') {
    rawMessages = [];
    const messageLines: Array<number | undefined> = [];
    for (const [index, line] of (value as unknown[]).entries()) {
      if (isObject(line) && !('role' in line) && 'system' in line && index === 0) rawSystem = line.system;
      else if (isInstructionsLine(line) && index === 0) {
        rawSystem = line.instructions;
        format ??= 'responses';
      } else {
        rawMessages.push(line);
        messageLines.push(lineNumbers?.[index]);
      }
    }
    messagePath = (index) => {
      const lineNumber = messageLines[index];
      return lineNumber === undefined ? `messages[${index}]` : `${lineNumber}: messages[${index}]`;
    };
  } else if (Array.isArray(value)) {
    rawMessages = value;
  } else if (isObject(value) && Object.hasOwn(value, 'input') && !Object.hasOwn(value, 'messages')) {
    // A Responses conversation or request: `input` (a string or items) and `instructions`.
    rawMessages =
      typeof value.input === 'string' ? [{ role: 'user', content: value.input }] : (value.input as unknown[]);
    if (!Array.isArray(rawMessages)) {
      throw unreadable(`expected a string or an array, got ${typeName(value.input)}`, 'input', source);
    }
    rawSystem = value.instructions ?? undefined;
    format ??= 'responses';
    messagePath = (index) => `input[${index}]`;
  } else if (isObject(value) && Object.hasOwn(value, 'contents') && !Object.hasOwn(value, 'messages')) {
    // A Gemini conversation or generateContent request: `contents` and `systemInstruction`.
    if (!Array.isArray(value.contents)) {
      const where = source === undefined ? 'contents' : `${source}: contents`;
      const message = `contents must be an array, got ${typeName(value.contents)}`;
      throw new CompactError(message, { code: 'INVALID_TRANSCRIPT', path: where });
    }
    rawMessages = value.contents;
    rawSystem = value.systemInstruction ?? undefined;
    format ??= 'gemini';
    messagePath = (index) => `contents[${index}]`;
  } else if (isObject(value)) {
    if (!Object.hasOwn(value, 'messages')) throw unreadable('expected a "messages" array', undefined, source);
    if (!Array.isArray(value.messages)) {
      throw unreadable(`expected an array, got ${typeName(value.messages)}`, 'messages', source);
    }
    rawMessages = value.messages;
    rawSystem = Object.hasOwn(value, 'system') ? value.system : undefined;
  } else {
    throw unreadable(`expected a conversation, got ${typeName(value)}`, undefined, source);
  }
  checkDepthAndStrings(rawMessages, messagePath, source);
  if (rawSystem !== undefined) checkDepthAndStrings([rawSystem], () => 'system', source);

  const detected = format ?? detectFormat(rawMessages);
  switch (detected) {
    case 'anthropic': {
      const conversation: Conversation = {
        messages: rawMessages.map((message, index) =>
          readAnthropicMessage(message, messagePath(index), source),
        ),
      };
      if (rawSystem !== undefined && rawSystem !== null) conversation.system = readSystem(rawSystem, source);
      return { conversation, format: 'anthropic', layout };
    }
    case 'openai': {
      const openAIMessages = rawMessages.map((message, index) =>
        readOpenAIMessage(message, messagePath(index), source),
      );
      const withSystem: OpenAIChatMessage[] =
        rawSystem !== undefined && rawSystem !== null
          ? [
              { role: 'system', content: readSystem(rawSystem, source) as string | TextBlock[] },
              ...openAIMessages,
            ]
          : openAIMessages;
      const { system, messages, systemRole } = fromOpenAIMessages(withSystem);
      const conversation: Conversation = { messages };
      if (system !== undefined) conversation.system = system;
      const result: ParsedConversation = { conversation, format: 'openai', layout, openAIMessages };
      if (systemRole) result.systemRole = systemRole;
      return result;
    }
    case 'responses':
      return readResponses(rawMessages, rawSystem, layout, messagePath, source);
    case 'gemini':
      try {
        const conversation = geminiConversation(rawMessages, rawSystem);
        return { conversation, format: 'gemini', layout, geminiContents: rawMessages };
      } catch (error) {
        if (!CompactError.isInstance(error) || source === undefined) throw error;
        const message = error.message.replace(`${error.path}: `, '');
        throw new CompactError(message, { code: error.code, path: `${source}: ${error.path}`, cause: error });
      }
    default: {
      const unreachable: never = detected;
      throw new Error(`unknown format ${String(unreachable)}`);
    }
  }
}

/**
 * Guesses whether raw messages are in Anthropic or OpenAI shape. Messages that only carry string
 * content are the same in both; they count as Anthropic.
 *
 * @example
 * detectFormat([{ role: 'tool', tool_call_id: 'call_1', content: 'ok' }]); // 'openai'
 */
export function detectFormat(messages: readonly unknown[]): MessageFormat {
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

/**
 * Writes a conversation as JSON (or JSONL) in the given format.
 *
 * @example
 * const text = serializeConversation(conversation, 'openai', { jsonl: true });
 */
export function serializeConversation(
  conversation: Conversation,
  format: MessageFormat,
  { jsonl = false, systemRole }: SerializeConversationOptions = {},
): string {
  switch (format) {
    case 'anthropic': {
      if (jsonl) {
        const lines = conversation.messages.map((message) => JSON.stringify(message));
        if (conversation.system !== undefined) lines.unshift(JSON.stringify({ system: conversation.system }));
        return `${lines.join('\n')}\n`;
      }
      const body: Conversation =
        conversation.system === undefined
          ? { messages: conversation.messages }
          : { system: conversation.system, messages: conversation.messages };
      return `${JSON.stringify(body, null, 2)}\n`;
    }
    case 'responses':
      return serializeResponses(conversation, jsonl);
    case 'gemini':
      return serializeGemini(conversation, jsonl);
    case 'openai': {
      const openAIMessages = toOpenAIMessages(conversation, systemRole ? { systemRole } : {});
      if (jsonl) return `${openAIMessages.map((message) => JSON.stringify(message)).join('\n')}\n`;
      return `${JSON.stringify({ messages: openAIMessages }, null, 2)}\n`;
    }
    default: {
      const unreachable: never = format;
      throw new Error(`unknown format ${String(unreachable)}`);
    }
  }
}

/** Line and column (both 1-based) of a character offset in a text. */
export function lineAndColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(position, 0), text.length);
  for (let index = text.indexOf('\n'); index !== -1 && index < end; index = text.indexOf('\n', index + 1)) {
    line += 1;
    lineStart = index + 1;
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Parses a whole JSON text; broken JSON throws `UNREADABLE_INPUT` with its line and column.
 *
 * @example
 * const value = parseJsonText(text, 'run.traj');
 */
export function parseJsonText(text: string, source?: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const parsed = tryParseJson(body);
  if (parsed.ok) return parsed.value;
  const where = parsed.position === undefined ? undefined : lineAndColumn(body, parsed.position);
  const location = where ? `${where.line}:${where.column}` : undefined;
  throw unreadable(`broken JSON: ${parsed.reason}`, location, source, parsed.error);
}

/** Parses one JSONL line; a broken line throws `UNREADABLE_INPUT` naming its line number. */
export function parseJsonLine(line: string, lineNumber: number, source?: string): unknown {
  const parsed = tryParseJson(line);
  if (parsed.ok) return parsed.value;
  const location =
    parsed.position === undefined
      ? `line ${lineNumber}`
      : `${lineNumber}:${lineAndColumn(line, parsed.position).column}`;
  throw unreadable(`broken JSON: ${parsed.reason}`, location, source, parsed.error);
}

// ---------------------------------------------------------------------------------------------
// JSON and JSONL

type JsonResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: string; position: number | undefined; error: unknown };

function tryParseJson(text: string): JsonResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof RangeError) {
      return { ok: false, reason: 'nested too deeply to read', position: 0, error };
    }
    const match = /at position (\d+)/.exec(message);
    const position = match
      ? Number(match[1])
      : /end of JSON/i.test(message)
        ? text.length
        : errorOffset(text);
    const reason = message
      .replace(/\s*in JSON at position \d+.*$/s, '')
      .replace(/\s*\(line \d+ column \d+\)/, '')
      // The engine quotes the input: binary input must not break the line or drive the terminal.
      .replace(
        /[\u0000-\u001f\u007f-\u009f]/g,
        (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
    return { ok: false, reason, position, error };
  }
}

/**
 * Finds where JSON breaks when V8 does not say (Node 20 omits the position of an unexpected
 * token): the longest prefix that is still the start of valid JSON ends at the offending character.
 * Binary search works because every prefix of a valid prefix is one too.
 */
function errorOffset(text: string): number | undefined {
  const isValidStart = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length));
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : '';
      if (/end of JSON/i.test(message)) return true;
      const match = /at position (\d+)/.exec(message);
      return match !== null && Number(match[1]) >= length;
    }
  };
  let good = 0;
  let bad = text.length;
  if (isValidStart(bad)) return undefined;
  while (bad - good > 1) {
    const middle = Math.floor((good + bad) / 2);
    if (isValidStart(middle)) good = middle;
    else bad = middle;
  }
  return good;
}

function looksLikeJsonl(text: string): boolean {
  let objectLines = 0;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (!trimmed.startsWith('{')) return false;
    objectLines += 1;
    if (objectLines > 1) return true;
  }
  return false;
}

function parseJsonLines(
  text: string,
  source: string | undefined,
): { values: unknown[]; lineNumbers: number[] } {
  const values: unknown[] = [];
  const lineNumbers: number[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    values.push(parseJsonLine(line, index + 1, source));
    lineNumbers.push(index + 1);
  }
  return { values, lineNumbers };
}

// ---------------------------------------------------------------------------------------------
// Structure checks (iterative, so deep input cannot overflow the stack)

function checkDepthAndStrings(
  roots: unknown[],
  pathOf: (index: number) => string,
  source: string | undefined,
): void {
  for (const [index, root] of roots.entries()) {
    const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 1 }];
    while (stack.length > 0) {
      const { value, depth } = stack.pop()!;
      if (depth > MAX_NESTING_DEPTH) {
        throw unreadable(`nested deeper than ${MAX_NESTING_DEPTH} levels`, pathOf(index), source);
      }
      if (Array.isArray(value)) {
        for (let item = 0; item < value.length; item += 1) {
          const child: unknown = value[item];
          if (typeof child === 'string') value[item] = wellFormed(child);
          else if (typeof child === 'object' && child !== null)
            stack.push({ value: child, depth: depth + 1 });
        }
      } else if (isObject(value)) {
        for (const key of Object.keys(value)) {
          const child = value[key];
          if (typeof child === 'string') value[key] = wellFormed(child);
          else if (typeof child === 'object' && child !== null)
            stack.push({ value: child, depth: depth + 1 });
        }
      }
    }
  }
}

/** Lone surrogates (invalid UTF-16) become U+FFFD, so output is valid UTF-8 for the provider. */
function wellFormed(text: string): string {
  return loneSurrogate.test(text) ? text.replace(loneSurrogates, '\uFFFD') : text;
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const loneSurrogates = new RegExp(loneSurrogate.source, 'g');

// ---------------------------------------------------------------------------------------------
// Anthropic shape

function readSystem(value: unknown, source: string | undefined): SystemPrompt {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value))
    throw unreadable(`expected string or array, got ${typeName(value)}`, 'system', source);
  return value.map((block, index) => {
    const path = `system[${index}]`;
    const object = expectObject(block, path, source);
    if (object.type !== 'text') {
      throw unreadable(`expected a text block, got ${describeType(object.type)}`, `${path}.type`, source);
    }
    return readTextBlock(object, path, source);
  });
}

function readAnthropicMessage(value: unknown, path: string, source: string | undefined): Message {
  const object = expectObject(value, path, source);
  const { role } = object;
  if (role !== 'user' && role !== 'assistant') {
    throw unreadable(`expected "user" or "assistant", got ${describeValue(role)}`, `${path}.role`, source);
  }
  const { content } = object;
  if (typeof content === 'string') return { role, content };
  if (!Array.isArray(content)) {
    throw unreadable(`expected string or array, got ${typeName(content)}`, `${path}.content`, source);
  }
  return {
    role,
    content: content.map((block, index) => readBlock(block, `${path}.content[${index}]`, source)),
  };
}

function readBlock(value: unknown, path: string, source: string | undefined): ContentBlock {
  const object = expectObject(value, path, source);
  const type = expectString(object.type, `${path}.type`, source);
  switch (type) {
    case 'text':
      return readTextBlock(object, path, source);
    case 'image': {
      const sourceValue = expectObject(object.source, `${path}.source`, source);
      expectString(sourceValue.type, `${path}.source.type`, source);
      const image: ImageBlock = { type: 'image', source: { ...sourceValue } as { type: string } };
      return withCacheControl(image, object);
    }
    case 'thinking': {
      const thinking = expectString(object.thinking, `${path}.thinking`, source);
      const signature =
        object.signature === undefined ? '' : expectString(object.signature, `${path}.signature`, source);
      return { type: 'thinking', thinking, signature };
    }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: expectString(object.data, `${path}.data`, source) };
    case 'tool_use': {
      const id = expectString(object.id, `${path}.id`, source);
      const name = expectString(object.name, `${path}.name`, source);
      const input = object.input === undefined ? {} : object.input;
      const toolUse: ToolUseBlock = { type: 'tool_use', id, name, input };
      return withCacheControl(toolUse, object);
    }
    case 'tool_result': {
      const toolUseId = expectString(object.tool_use_id, `${path}.tool_use_id`, source);
      const block: ToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId };
      const { content } = object;
      if (typeof content === 'string') block.content = content;
      else if (Array.isArray(content)) {
        block.content = content.map(
          (inner, index) => readBlock(inner, `${path}.content[${index}]`, source) as ToolResultContentBlock,
        );
      } else if (content !== undefined && content !== null) {
        throw unreadable(`expected string or array, got ${typeName(content)}`, `${path}.content`, source);
      }
      if (object.is_error !== undefined) {
        if (typeof object.is_error !== 'boolean') {
          throw unreadable(`expected boolean, got ${typeName(object.is_error)}`, `${path}.is_error`, source);
        }
        block.is_error = object.is_error;
      }
      return withCacheControl(block, object);
    }
    default:
      // Unknown block types pass through untouched (own keys only; `__proto__` stays a plain key).
      return { ...object, type } as ContentBlock;
  }
}

function readTextBlock(object: JsonObject, path: string, source: string | undefined): TextBlock {
  const block: TextBlock = { type: 'text', text: expectString(object.text, `${path}.text`, source) };
  if (Array.isArray(object.citations)) block.citations = object.citations;
  return withCacheControl(block, object);
}

function withCacheControl<T extends { cache_control?: CacheControl }>(block: T, object: JsonObject): T {
  const cacheControl = object.cache_control;
  if (isObject(cacheControl) && cacheControl.type === 'ephemeral') {
    const copy: CacheControl = { type: 'ephemeral' };
    if (cacheControl.ttl === '5m' || cacheControl.ttl === '1h') copy.ttl = cacheControl.ttl;
    block.cache_control = copy;
  }
  return block;
}

// ---------------------------------------------------------------------------------------------
// OpenAI shape

function readOpenAIMessage(value: unknown, path: string, source: string | undefined): OpenAIChatMessage {
  const object = expectObject(value, path, source);
  const { role } = object;
  switch (role) {
    case 'system':
    case 'developer':
    case 'user':
      return { role, content: readOpenAIContent(object.content, `${path}.content`, source) };
    case 'tool':
      return {
        role,
        tool_call_id: expectString(object.tool_call_id, `${path}.tool_call_id`, source),
        content: readOpenAIContent(object.content, `${path}.content`, source),
      };
    case 'assistant': {
      const message: OpenAIChatMessage & { role: 'assistant' } = { role: 'assistant' };
      const { content } = object;
      message.content =
        content === undefined || content === null
          ? null
          : readOpenAIContent(content, `${path}.content`, source);
      if (object.tool_calls !== undefined && object.tool_calls !== null) {
        if (!Array.isArray(object.tool_calls)) {
          throw unreadable(
            `expected array, got ${typeName(object.tool_calls)}`,
            `${path}.tool_calls`,
            source,
          );
        }
        message.tool_calls = object.tool_calls.map((call, index) =>
          readToolCall(call, `${path}.tool_calls[${index}]`, source),
        );
      }
      if (typeof object.refusal === 'string') message.refusal = object.refusal;
      if (typeof object.reasoning_content === 'string') message.reasoning_content = object.reasoning_content;
      return message;
    }
    default:
      throw unreadable(
        `expected "system", "developer", "user", "assistant" or "tool", got ${describeValue(role)}`,
        `${path}.role`,
        source,
      );
  }
}

function readOpenAIContent(
  value: unknown,
  path: string,
  source: string | undefined,
): string | OpenAIContentPart[] {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value))
    throw unreadable(`expected string or array, got ${typeName(value)}`, path, source);
  return value.map((part, index) => {
    const partPath = `${path}[${index}]`;
    const object = expectObject(part, partPath, source);
    const type = expectString(object.type, `${partPath}.type`, source);
    if (type === 'text') return { type: 'text', text: expectString(object.text, `${partPath}.text`, source) };
    if (type === 'image_url') {
      const imageUrl = expectObject(object.image_url, `${partPath}.image_url`, source);
      const url = expectString(imageUrl.url, `${partPath}.image_url.url`, source);
      const detail = imageUrl.detail;
      if (detail === 'auto' || detail === 'low' || detail === 'high')
        return { type, image_url: { url, detail } };
      return { type, image_url: { url } };
    }
    return { ...object, type };
  });
}

function readToolCall(value: unknown, path: string, source: string | undefined): OpenAIToolCall {
  const object = expectObject(value, path, source);
  const id = expectString(object.id, `${path}.id`, source);
  const fn = expectObject(object.function, `${path}.function`, source);
  const name = expectString(fn.name, `${path}.function.name`, source);
  const rawArguments = fn.arguments;
  let argumentsText: string;
  if (typeof rawArguments === 'string') argumentsText = rawArguments;
  else if (rawArguments === undefined || rawArguments === null) argumentsText = '';
  else if (isObject(rawArguments)) argumentsText = JSON.stringify(rawArguments);
  else
    throw unreadable(`expected string, got ${typeName(rawArguments)}`, `${path}.function.arguments`, source);
  return { id, type: 'function', function: { name, arguments: argumentsText } };
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses shape

/** Item types only the Responses API has; a part type `input_*`/`output_text` is a mark too. */
const responsesItemTypes = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'compaction',
  'item_reference',
]);
const responsesPartTypes = new Set(['input_text', 'output_text', 'input_image', 'input_file']);

function hasResponsesMark(item: unknown): boolean {
  if (!isObject(item)) return false;
  const { type, content } = item;
  // An Anthropic API response object is also `type: "message"`: only its parts tell them apart.
  if (
    typeof type === 'string' &&
    type !== 'message' &&
    (responsesItemTypes.has(type) || type.endsWith('_call'))
  )
    return true;
  return (
    Array.isArray(content) &&
    content.some((part) => isObject(part) && responsesPartTypes.has(String(part.type)))
  );
}

function isInstructionsLine(line: unknown): line is JsonObject {
  return isObject(line) && Object.hasOwn(line, 'instructions') && !('role' in line) && !('type' in line);
}

/** Rules that make a Responses input unreadable (pairing and placement are left to `validate`). */
const structuralRules = new Set<ValidationRule>([
  'message-not-object',
  'invalid-role',
  'invalid-content',
  'invalid-block',
  'invalid-item',
  'invalid-tool-call',
  'invalid-tool-message',
]);

function readResponses(
  rawItems: unknown[],
  rawSystem: unknown,
  layout: ConversationLayout,
  messagePath: (index: number) => string,
  source: string | undefined,
): ParsedConversation {
  const problem = validateMessages(rawItems, { format: 'responses' }).find((found) =>
    structuralRules.has(found.rule),
  );
  if (problem) {
    // `input[3].call_id` → the reader's own name for item 3 (its JSONL line when known).
    const path = problem.path.replace(/^input\[(\d+)\]/, (_, index: string) => messagePath(Number(index)));
    throw unreadable(problem.message, path, source);
  }
  if (rawSystem !== undefined && rawSystem !== null && typeof rawSystem !== 'string') {
    throw unreadable(`expected a string, got ${typeName(rawSystem)}`, 'instructions', source);
  }
  const responsesInput = rawItems as ResponsesInputItem[];
  const { messages, system } = fromResponsesInput(responsesInput, {
    instructions: rawSystem as string | undefined,
  });
  const conversation: Conversation = { messages };
  if (system !== undefined) conversation.system = system;
  return { conversation, format: 'responses', layout, responsesInput };
}

/** `{ "instructions"?, "input": [...] }`, or JSONL with an optional `{"instructions"}` first line. */
function serializeResponses(conversation: Conversation, jsonl: boolean): string {
  const { system } = conversation;
  const input = toResponsesInput(conversation.messages, system);
  const instructions = Array.isArray(system)
    ? system
        .filter(
          (block) =>
            (block.provider_data?.[RESPONSES_DATA_KEY] as { instructions?: true } | undefined)?.instructions,
        )
        .map((block) => block.text)
        .join('\n\n')
    : '';
  if (jsonl) {
    const lines = input.map((item) => JSON.stringify(item));
    if (instructions !== '') lines.unshift(JSON.stringify({ instructions }));
    return `${lines.join('\n')}\n`;
  }
  const body = instructions === '' ? { input } : { instructions, input };
  return `${JSON.stringify(body, null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------------
// Helpers

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function describeValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : typeName(value);
}

function describeType(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : typeName(value);
}

function expectObject(value: unknown, path: string, source: string | undefined): JsonObject {
  if (!isObject(value)) throw unreadable(`expected object, got ${typeName(value)}`, path, source);
  return value;
}

function expectString(value: unknown, path: string, source: string | undefined): string {
  if (typeof value !== 'string') throw unreadable(`expected string, got ${typeName(value)}`, path, source);
  return value;
}

function unreadable(message: string, path: string | undefined, source: string | undefined, cause?: unknown) {
  // `file.json:3:15` and `file.jsonl:4: messages[3].content` for positions; `line 4: …` without a
  // file name; `file.json: messages[3].content` for paths.
  const startsWithLine = path !== undefined && /^\d+(:\d+)?(: |$)/.test(path);
  let where: string | undefined;
  if (source !== undefined && path !== undefined) where = `${source}${startsWithLine ? ':' : ': '}${path}`;
  else if (path !== undefined) where = startsWithLine ? `line ${path}` : path;
  else where = source;
  return new CompactError(message, { code: 'UNREADABLE_INPUT', ...(where ? { path: where } : {}), cause });
}
