/**
 * Reads the FILE argument of a CLI command into a conversation. JSONL is read line by line from a
 * file stream, so a large session is never held as one string next to its parsed messages.
 * Every failure is one line naming the file and what is wrong: a {@link CliError} with exit code 2
 * for a file that cannot be opened, a `CompactError` `UNREADABLE_INPUT` (also exit 2) for content
 * that cannot be read, with line:column or path where known.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import {
  conversationFromValue,
  type ParsedConversation,
  parseConversation,
  parseJsonLine,
} from '../core/parse-conversation.js';
import type { MessageFormat } from '../core/types.js';
import { CliError, type CliIO } from './cli-io.js';

/** Options of {@link readConversationFile}. */
export interface ReadConversationOptions {
  /** Force a format instead of detecting it. */
  format?: MessageFormat | undefined;
}

/**
 * Reads and parses a conversation file (JSON object, JSON array or JSONL; Anthropic or OpenAI).
 *
 * @example
 * const { conversation, format, layout } = await readConversationFile('chat.jsonl', io);
 */
export async function readConversationFile(
  file: string,
  io: Pick<CliIO, 'cwd'>,
  { format }: ReadConversationOptions = {},
): Promise<ParsedConversation> {
  const path = resolve(io.cwd, file);
  await checkReadable(file, path);
  const options = format === undefined ? { source: file } : { format, source: file };
  if (await startsWithJsonlMessage(path)) {
    const { values, lineNumbers } = await readJsonLines(file, path);
    return conversationFromValue(values, 'jsonl', { ...options, lineNumbers });
  }
  const text = await readText(file, path);
  return parseConversation(text, options);
}

/** Describes why a file cannot be opened, in a few words. */
export function describeFileError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory, not a file';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

async function checkReadable(file: string, path: string): Promise<void> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new CliError(`${file}: is a directory, not a file`, 2);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${file}: ${describeFileError(error)}`, 2);
  }
}

async function readText(file: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`${file}: ${describeFileError(error)}`, 2);
  }
}

/**
 * True when the first non-empty line is a complete JSON object that is a message (or a system
 * line): then the file is JSONL. A pretty-printed JSON file's first line is never a whole object.
 */
async function startsWithJsonlMessage(path: string): Promise<boolean> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    for await (const rawLine of lines) {
      const line = rawLine.charCodeAt(0) === 0xfeff ? rawLine.slice(1) : rawLine;
      if (line.trim() === '') continue;
      if (!line.trimStart().startsWith('{')) return false;
      try {
        const value: unknown = JSON.parse(line);
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
        return (
          Object.hasOwn(value, 'role') ||
          (Object.hasOwn(value, 'system') && !Object.hasOwn(value, 'messages'))
        );
      } catch {
        // A broken first line: call it JSONL when more lines follow that look like objects.
        return false;
      }
    }
    return false;
  } finally {
    lines.close();
  }
}

async function readJsonLines(
  file: string,
  path: string,
): Promise<{ values: unknown[]; lineNumbers: number[] }> {
  const values: unknown[] = [];
  const lineNumbers: number[] = [];
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const rawLine of lines) {
      lineNumber += 1;
      const line = lineNumber === 1 && rawLine.charCodeAt(0) === 0xfeff ? rawLine.slice(1) : rawLine;
      if (line.trim() === '') continue;
      values.push(parseJsonLine(line, lineNumber, file));
      lineNumbers.push(lineNumber);
    }
  } catch (error) {
    if (
      error instanceof Error &&
      'code' in error &&
      typeof (error as NodeJS.ErrnoException).syscall === 'string'
    ) {
      throw new CliError(`${file}: ${describeFileError(error)}`, 2);
    }
    throw error;
  } finally {
    lines.close();
    stream.destroy();
  }
  return { values, lineNumbers };
}
