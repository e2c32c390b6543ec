/**
 * Finding a conversation file's messages and system prompt in its layout (`messages`, `input`,
 * `contents`, a JSONL `instructions` line), and the format the layout itself names, before
 * `conversationFromValue` hands them to a dialect.
 */
import { CompactError } from '../model/errors.js';
import type { WireFormat } from '../model/wire-format.js';
import { isObject, typeName, unreadable } from './_internal/read-helpers.js';
import { isInstructionsLine } from './responses/read-responses.js';

/** A file's messages and system prompt before a dialect reads them, and the format its shape names. */
export interface FoundConversation {
  messages: unknown[];
  system: unknown;
  messagePath: (index: number) => string;
  /** Set when the layout itself names the format (`input`, `contents`, an `instructions` line). */
  format?: WireFormat;
}

/** JSONL values: an optional `{"system"}` or `{"instructions"}` first line, then one message a line. */
export function foundInLines(
  values: readonly unknown[],
  lineNumbers: readonly number[] | undefined,
): FoundConversation {
  const found: FoundConversation = { messages: [], system: undefined, messagePath: () => '' };
  const messageLines: Array<number | undefined> = [];
  for (const [index, line] of values.entries()) {
    if (isObject(line) && !('role' in line) && 'system' in line && index === 0) found.system = line.system;
    else if (isInstructionsLine(line) && index === 0) {
      found.system = line.instructions;
      found.format = 'responses';
    } else {
      found.messages.push(line);
      messageLines.push(lineNumbers?.[index]);
    }
  }
  // Where each message is named in errors: its JSONL line when known, else its index.
  found.messagePath = (index) => {
    const lineNumber = messageLines[index];
    return lineNumber === undefined ? `messages[${index}]` : `${lineNumber}: messages[${index}]`;
  };
  return found;
}

/** A bare array of messages, or an object with `messages`, `input` (Responses) or `contents` (Gemini). */
export function foundInValue(value: unknown, source: string | undefined): FoundConversation {
  const byIndex = (field: string) => (index: number) => `${field}[${index}]`;
  if (Array.isArray(value)) return { messages: value, system: undefined, messagePath: byIndex('messages') };
  if (!isObject(value))
    throw unreadable(`expected a conversation, got ${typeName(value)}`, undefined, source);
  const hasMessages = Object.hasOwn(value, 'messages');
  if (Object.hasOwn(value, 'input') && !hasMessages) {
    // A Responses conversation or request: `input` (a string or items) and `instructions`.
    const { input } = value;
    const messages = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
    if (!Array.isArray(messages)) {
      throw unreadable(`expected a string or an array, got ${typeName(input)}`, 'input', source);
    }
    const system = value.instructions ?? undefined;
    return { messages, system, messagePath: byIndex('input'), format: 'responses' };
  }
  if (Object.hasOwn(value, 'contents') && !hasMessages) {
    // A Gemini conversation or generateContent request: `contents` and `systemInstruction`.
    if (!Array.isArray(value.contents)) {
      const where = source === undefined ? 'contents' : `${source}: contents`;
      const message = `contents must be an array, got ${typeName(value.contents)}`;
      throw new CompactError(message, { code: 'INVALID_TRANSCRIPT', path: where });
    }
    const system = value.systemInstruction ?? undefined;
    return { messages: value.contents, system, messagePath: byIndex('contents'), format: 'gemini' };
  }
  if (!hasMessages) throw unreadable('expected a "messages" array', undefined, source);
  if (!Array.isArray(value.messages)) {
    throw unreadable(`expected an array, got ${typeName(value.messages)}`, 'messages', source);
  }
  const system = Object.hasOwn(value, 'system') ? value.system : undefined;
  return { messages: value.messages, system, messagePath: byIndex('messages') };
}
