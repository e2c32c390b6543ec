/**
 * Reading and writing conversation files: a JSON object `{ "system"?, "messages": [...] }`, a bare
 * JSON array of messages, or JSONL (one message per line), in any wire format: the layout is read
 * here, the messages by the format's dialect (`core/wire/<format>/`).
 *
 * Every failure is a {@link CompactError} with code `UNREADABLE_INPUT` that says where:
 * `3:15` (line:column) for broken JSON, `line 4` for a broken JSONL line, a path such as
 * `messages[3].content` for a value of the wrong type. Unknown fields on messages and on known
 * blocks are dropped; unknown block types are kept as they are.
 */
import type { Conversation } from '../model/messages.js';
import type { WireFormat } from '../model/wire-format.js';
import { isObject, typeName, unreadable } from '../wire/_internal/read-helpers.js';
import { detectFormat } from '../wire/detect-format.js';
import { dialects } from '../wire/dialects.js';
import { foundInLines, foundInValue } from '../wire/find-conversation.js';
import type {
  ConversationLayout,
  ParsedConversation,
  SerializeConversationOptions,
} from '../wire/parsed-conversation.js';

export { detectFormat };

/** Deepest nesting accepted anywhere in the input; deeper input is refused with a clear error. */
export const MAX_NESTING_DEPTH = 500;

/** Options of {@link parseConversation}. */
export interface ParseConversationOptions {
  /** Force a format instead of detecting it. */
  format?: WireFormat;
  /** Name of the input (usually a file path), put in front of error paths. */
  source?: string;
}

/** Options of {@link conversationFromValue}. */
export interface ConversationFromValueOptions extends ParseConversationOptions {
  /** JSONL only: the 1-based line number of each value, so errors can name the line. */
  lineNumbers?: readonly number[];
}

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
  const found =
    layout === 'jsonl' ? foundInLines(value as unknown[], lineNumbers) : foundInValue(value, source);
  const { messages, system, messagePath } = found;
  checkDepthAndStrings(messages, messagePath, source);
  if (system !== undefined) checkDepthAndStrings([system], () => 'system', source);
  const format = forced ?? found.format ?? detectFormat(messages);
  const dialect = Object.hasOwn(dialects, format) ? dialects[format] : undefined;
  if (!dialect) throw new Error(`unknown format ${String(format)}`);
  return dialect.readConversation({ messages, system, layout, messagePath, source });
}

/**
 * Writes a conversation as JSON (or JSONL) in the given format. After a compaction, give the
 * messages as read in `compactedFrom`, so what the compactor rewrote keeps its wire fields.
 *
 * @example
 * const text = serializeConversation(conversation, 'openai', { jsonl: true });
 * const compacted = serializeConversation({ ...conversation, messages: result.messages }, 'gemini', {
 *   compactedFrom: conversation.messages,
 * });
 */
export function serializeConversation(
  conversation: Conversation,
  format: WireFormat,
  { jsonl = false, systemRole, compactedFrom }: SerializeConversationOptions = {},
): string {
  const dialect = Object.hasOwn(dialects, format) ? dialects[format] : undefined;
  if (!dialect) throw new Error(`unknown format ${String(format)}`);
  return dialect.serializeConversation(conversation, {
    jsonl,
    ...(systemRole ? { systemRole } : {}),
    ...(compactedFrom ? { compactedFrom } : {}),
  });
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

/**
 * Two or more lines that open objects, the first of them a whole JSON value: a document laid out
 * over lines (`{"messages": [` then one message a line) is one broken JSON value, not JSONL, and
 * its error belongs where the whole parse stopped.
 */
function looksLikeJsonl(text: string): boolean {
  let objectLines = 0;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (!trimmed.startsWith('{')) return false;
    if (objectLines === 0 && !tryParseJson(trimmed).ok) return false;
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
