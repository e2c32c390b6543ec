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
import type { Message, ParsedConversation, SystemPrompt } from 'agent-compact';
import { CompactError, parseConversation } from 'agent-compact';
import { conversationFromValue, decodeUtf8, jsonFileLines } from 'agent-compact/internal';
import type { WireFormat } from 'agent-compact/wire';
import { CliError, type CliIO } from './cli-io.js';
import { lineVerdict, streamedFormat } from './wire/line-streaming.js';

/** Options of {@link readConversationFile}. */
export interface ReadConversationOptions {
  /** Force a format instead of detecting it. */
  format?: WireFormat | undefined;
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
  if (await startsWithJsonlMessage(file, path)) {
    const { values, lineNumbers } = await readJsonLines(file, path);
    return conversationFromValue(values, 'jsonl', { ...options, lineNumbers });
  }
  const text = await readText(file, path);
  return parseConversation(text, options);
}

/** What {@link streamConversationFile} read. */
export interface StreamedConversation {
  format: typeof streamedFormat;
  system?: SystemPrompt;
  /** How many messages were passed to `onMessage`. */
  messages: number;
}

/**
 * Reads an Anthropic JSONL conversation one message at a time and hands each to `onMessage`, so
 * memory stays flat however large the file is (a 200 MB session counts in a 150 MB heap). Returns
 * undefined when the file is not Anthropic JSONL — a JSON document, or OpenAI messages, whose tool
 * results span messages — after `onMessage` may have seen a prefix: start over with
 * {@link readConversationFile} then. Errors are the same as {@link readConversationFile}'s.
 *
 * @example
 * let tokens = 0;
 * const streamed = await streamConversationFile('big.jsonl', io, {}, (message) => {
 *   tokens += countMessageTokens(message, counter);
 * });
 */
export async function streamConversationFile(
  file: string,
  io: Pick<CliIO, 'cwd'>,
  { format }: ReadConversationOptions,
  onMessage: (message: Message, bytesRead: number) => void,
): Promise<StreamedConversation | undefined> {
  const path = resolve(io.cwd, file);
  await checkReadable(file, path);
  if ((format !== undefined && format !== streamedFormat) || !(await startsWithJsonlMessage(file, path)))
    return undefined;
  const result: StreamedConversation = { format: streamedFormat, messages: 0 };
  let decided = format === streamedFormat;
  let first = true;
  try {
    for await (const { value, lineNumber, bytesRead } of jsonFileLines(path, file)) {
      if (!decided) {
        // The whole-file detection takes the first message with a format's mark.
        const verdict = lineVerdict(value);
        if (verdict === 'other-format') return undefined;
        decided = verdict === 'settled';
      }
      const index = result.messages;
      const parsed = withMessageIndex(
        () =>
          first
            ? conversationFromValue([value], 'jsonl', {
                format: streamedFormat,
                source: file,
                lineNumbers: [lineNumber],
              })
            : conversationFromValue([value], 'array', { format: streamedFormat, source: file }),
        file,
        lineNumber,
        index,
      );
      first = false;
      if (parsed.conversation.system !== undefined) result.system = parsed.conversation.system;
      for (const message of parsed.conversation.messages) {
        onMessage(message, bytesRead);
        result.messages += 1;
      }
    }
  } catch (error) {
    throw asFileError(file, error);
  }
  return result;
}

/**
 * Reads a conversation file whole, as {@link readConversationFile} does, but an Anthropic JSONL file
 * one line at a time, each line turned into its message as it is read: the file's parsed lines are
 * never held beside the messages made from them, so memory grows with the conversation only once.
 * `onMessage` sees each message as it is read (to count it, to show progress).
 */
export async function readConversationStreamed(
  file: string,
  io: Pick<CliIO, 'cwd'>,
  options: ReadConversationOptions,
  onMessage?: (message: Message, bytesRead: number) => void,
): Promise<ParsedConversation> {
  const messages: Message[] = [];
  const streamed = await streamConversationFile(file, io, options, (message, bytesRead) => {
    messages.push(message);
    onMessage?.(message, bytesRead);
  });
  if (!streamed) return readConversationFile(file, io, options);
  const conversation = streamed.system === undefined ? { messages } : { system: streamed.system, messages };
  return { conversation, format: streamedFormat, layout: 'jsonl' };
}

/** Runs a one-message parse and names the message as the whole-file read does: `file:LINE: messages[N]`. */
function withMessageIndex<T>(parse: () => T, file: string, lineNumber: number, index: number): T {
  try {
    return parse();
  } catch (error) {
    if (!CompactError.isInstance(error) || error.path === undefined) throw error;
    const match = /^(?:.*?: )?messages\[0\](.*)$/.exec(error.path);
    if (!match) throw error;
    const path = `${file}:${lineNumber}: messages[${index}]${match[1]}`;
    const message = error.message.startsWith(`${error.path}: `)
      ? error.message.slice(error.path.length + 2)
      : error.message;
    throw new CompactError(message, { code: error.code, path, cause: error.cause });
  }
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
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new CliError(`${file}: ${describeFileError(error)}`, 2);
  }
  return decodeUtf8(bytes, file);
}

/**
 * True when the first non-empty line is a complete JSON object that is a message (or a system
 * line): then the file is JSONL. A pretty-printed JSON file's first line is never a whole object.
 * A file that opens but whose read fails (EIO, a special file) fails here, first: one line naming it.
 */
async function startsWithJsonlMessage(file: string, path: string): Promise<boolean> {
  try {
    return await firstLineIsMessage(path);
  } catch (error) {
    throw asFileError(file, error);
  }
}

async function firstLineIsMessage(path: string): Promise<boolean> {
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
  try {
    for await (const { value, lineNumber } of jsonFileLines(path, file)) {
      values.push(value);
      lineNumbers.push(lineNumber);
    }
  } catch (error) {
    throw asFileError(file, error);
  }
  return { values, lineNumbers };
}

/** A failed system call while reading becomes one line naming the file; other errors pass through. */
function asFileError(file: string, error: unknown): unknown {
  const systemError = error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
  return systemError ? new CliError(`${file}: ${describeFileError(error)}`, 2) : error;
}
