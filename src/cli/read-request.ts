/**
 * Reads the FILE argument of a CLI command as a whole request body — what an agent sends to the
 * provider, e.g. captured from a proxy log: `model`, `tools`, `max_tokens` … beside `messages`
 * (or `input` for OpenAI Responses). A conversation file (`{ system?, messages }`, an array of
 * messages, JSONL) is not a request: the commands read those with `readConversationFile`.
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { ValidationProblem } from 'agent-compact';
import { CompactError } from 'agent-compact';
import type { RequestConversation } from 'agent-compact/internal';
import { dialects, isPlainObject, readRequestConversation } from 'agent-compact/internal';
import type { RequestBody, WireFormat } from 'agent-compact/wire';
import { detectRequestFormat } from 'agent-compact/wire';
import type { CliIO } from './cli-io.js';

/** The only top-level fields of a conversation file; any other field makes the object a request. */
const conversationFields = new Set(['system', 'messages']);

/** The only top-level fields of a Responses conversation file. */
const responsesConversationFields = new Set(['instructions', 'input']);

/** A whole request body read from a file. */
export interface RequestFile {
  /** The body as it was in the file. */
  body: RequestBody;
  /** The API it is written for (detected or forced). */
  format: WireFormat;
  /** Its conversation in the canonical model. */
  conversation: RequestConversation;
  /** True when the file held the body on one line (as a proxy log does); output keeps that. */
  oneLine: boolean;
}

/**
 * Reads FILE as a whole request body, or returns undefined when it is a conversation file or
 * cannot be read as JSON at all (the conversation reader then reports what is wrong).
 *
 * @throws {CompactError} `UNREADABLE_INPUT` with the field's path when a request's field has the
 *   wrong type, prefixed with the file name.
 */
export async function readRequestFile(
  file: string,
  io: Pick<CliIO, 'cwd'>,
  { format }: { format?: WireFormat | undefined } = {},
): Promise<RequestFile | undefined> {
  const path = resolve(io.cwd, file);
  if (await startsWithMessageLine(path)) return undefined;
  let text: string;
  try {
    const bytes = await readFile(path);
    // Bytes that are not UTF-8: the conversation reader names their line.
    if (!isUtf8(bytes)) return undefined;
    text = bytes.toString('utf8');
  } catch {
    return undefined;
  }
  const body = parseObject(text);
  if (!body || !isWholeRequest(body)) return undefined;
  try {
    const used = format ?? detectRequestFormat(body);
    return {
      body,
      format: used,
      conversation: readRequestConversation(body, used),
      oneLine: !text.trim().includes('\n'),
    };
  } catch (error) {
    throw inFile(file, error);
  }
}

/** The text a request is written back as: one line when it came on one line, else indented. */
export function serializeRequest(body: unknown, oneLine: boolean): string {
  return `${oneLine ? JSON.stringify(body) : JSON.stringify(body, null, 2)}\n`;
}

/** Names the file in front of a `CompactError`'s path, as the conversation reader does. */
export function inFile(file: string, error: unknown): unknown {
  if (!CompactError.isInstance(error)) return error;
  const path = error.path === undefined ? file : `${file}: ${error.path}`;
  const message =
    error.path && error.message.startsWith(`${error.path}: `)
      ? error.message.slice(error.path.length + 2)
      : error.message;
  return new CompactError(message, {
    code: error.code,
    path,
    cause: error.cause,
    ...(error.problems ? { problems: error.problems } : {}),
  });
}

function isWholeRequest(value: RequestBody): boolean {
  const keys = Object.keys(value);
  if (Object.hasOwn(value, 'messages')) return keys.some((key) => !conversationFields.has(key));
  if (Object.hasOwn(value, 'contents'))
    return keys.some((key) => key !== 'contents' && key !== 'systemInstruction');
  return Object.hasOwn(value, 'input') && keys.some((key) => !responsesConversationFields.has(key));
}

function parseObject(text: string): RequestBody | undefined {
  try {
    const value: unknown = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** True when the first line is one JSONL message: then the file is a conversation, read as it streams. */
async function startsWithMessageLine(path: string): Promise<boolean> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(line.charCodeAt(0) === 0xfeff ? line.slice(1) : line);
        // A `{"system"}` first line opens a JSONL conversation too: reading that whole file as one
        // request would hold all of it as a string only to fail to parse it.
        return (
          isPlainObject(value) &&
          (Object.hasOwn(value, 'role') ||
            (Object.hasOwn(value, 'system') && !Object.hasOwn(value, 'messages')))
        );
      } catch {
        return false;
      }
    }
    return false;
  } catch {
    return false;
  } finally {
    lines.close();
  }
}

/** Every rule the request's conversation breaks, with paths into the body (`messages[3]…`, `input[7]…`). */
export function requestProblems({ body, format, conversation }: RequestFile): ValidationProblem[] {
  return dialects[format].requestProblems(body, conversation);
}

/** Throws `INVALID_TRANSCRIPT` (exit 1) at the first rule the request's conversation breaks. */
export function assertValidRequest(request: RequestFile, file: string): void {
  const problems = requestProblems(request);
  const [first] = problems;
  if (!first) return;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : '';
  throw new CompactError(`${first.message}${more}`, {
    code: 'INVALID_TRANSCRIPT',
    path: `${file}: ${first.path}`,
    problems,
  });
}
