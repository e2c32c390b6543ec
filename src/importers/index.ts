/**
 * `agent-compact/importers`: read real agent transcripts (Claude Code sessions, SWE-agent and
 * mini-swe-agent trajectories, plain Anthropic or OpenAI conversations) into the canonical model,
 * with the provider usage they recorded.
 */

import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import {
  conversationFromValue,
  parseJsonLine,
  parseJsonText,
} from '../core/conversation/parse-conversation.js';
import { CompactError } from '../core/model/errors.js';
import { CANONICAL_FORMAT, type WireFormat } from '../core/model/wire-format.js';
import { isWireFormat } from '../core/wire/dialects.js';
import { isObject } from './_json.js';
import { jsonFileLines, jsonTextLines } from './_json-lines.js';
import { decodeUtf8 } from './_utf8-text.js';
import { claudeCodeFromLines, isClaudeCodeLine } from './claude-code.js';
import { codexFromLines, isCodexRolloutLine } from './codex.js';
import { geminiCliFromRecords, isGeminiCliChat, isGeminiCliRecord } from './gemini-cli.js';
import type { ImportedTranscript, TranscriptFormat } from './imported-transcript.js';
import { isMiniSweAgentTrajectory, miniSweAgentFromValue } from './mini-swe-agent.js';
import { isOpencodeExport, opencodeFromExport } from './opencode.js';
import { importPlainConversation, plainConversationFromParsed } from './plain-conversation.js';
import { isSweAgentTrajectory, sweAgentFromValue } from './swe-agent.js';
import { geminiRequestsFromLines, isGeminiRequestLine } from './wire/gemini/gemini-requests.js';
import { isResponsesRequestLine, responsesRequestsFromLines } from './wire/responses/responses-requests.js';

export { type ClaudeCodeImportOptions, importClaudeCode } from './claude-code.js';
export { codexFromLines, isCodexRolloutLine } from './codex.js';
export {
  type AgentCompaction,
  type ImportedTranscript,
  type ImportedUsage,
  type TranscriptFormat,
  type TranscriptMeta,
  transcriptFormats,
} from './imported-transcript.js';
export { importMiniSweAgent, type MiniSweAgentImportOptions } from './mini-swe-agent.js';
export { importPlainConversation, plainConversationFromParsed } from './plain-conversation.js';
export { importSweAgent, type SweAgentImportOptions } from './swe-agent.js';
export { geminiRequestsFromLines, isGeminiRequestLine } from './wire/gemini/gemini-requests.js';
export { isResponsesRequestLine, responsesRequestsFromLines } from './wire/responses/responses-requests.js';

/** Options of {@link importTranscript}. */
export interface ImportTranscriptOptions {
  /** Force a format instead of detecting it. */
  format?: TranscriptFormat;
  /** The file name, put in front of error paths and kept in `meta.source`. */
  source?: string;
}

/**
 * Reads a transcript from its text, detecting the format unless `format` forces one.
 *
 * @example
 * const { conversation, usage, meta } = importTranscript(text, { source: 'session.jsonl' });
 * console.log(meta.format, conversation.messages.length, usage.length);
 */
export function importTranscript(
  text: string,
  { format, source }: ImportTranscriptOptions = {},
): ImportedTranscript {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (format !== undefined && isWireFormat(format)) return wireImports[format](body, format, source);
  switch (format) {
    case 'claude-code':
      return withLineWarnings((warnings) =>
        claudeCodeFromLines(jsonTextLines(body, source, warnings), source),
      );
    case 'codex':
      return withLineWarnings((warnings) => codexFromLines(jsonTextLines(body, source, warnings), source));
    case 'gemini-cli':
      return geminiCliFromRecords(geminiCliValues(body, source), source);
    case 'opencode':
      return opencodeFromExport(parseWhole(body, source), source);
    case 'swe-agent':
      return sweAgentFromValue(parseWhole(body, source), source);
    case 'mini-swe-agent':
      return miniSweAgentFromValue(parseWhole(body, source), source);
    case undefined:
      return importDetected(body, source);
    default: {
      const unreachable: never = format;
      throw new CompactError(`unknown transcript format ${String(unreachable)}`, { code: 'INVALID_OPTIONS' });
    }
  }
}

/** How a file forced to a wire format is read, by format: the compiler asks for a new format's line. */
const wireImports: Readonly<
  Record<WireFormat, (body: string, format: WireFormat, source: string | undefined) => ImportedTranscript>
> = {
  anthropic: importPlain,
  openai: importPlain,
  responses: (body, format, source) => importResponses(body, tryParse(body), source, format),
  gemini: (body, format, source) =>
    geminiRequestLog(body, tryParse(body), source) ?? importPlain(body, format, source),
};

function importPlain(body: string, format: WireFormat, source: string | undefined): ImportedTranscript {
  return importPlainConversation(body, source === undefined ? { format } : { format, source });
}

/**
 * Reads a transcript file; see {@link importTranscript}.
 *
 * @example
 * const transcript = await importTranscriptFile('runs/django-11138.traj.json');
 */
export async function importTranscriptFile(
  path: string,
  options: Omit<ImportTranscriptOptions, 'source'> = {},
): Promise<ImportedTranscript> {
  const { format } = options;
  try {
    // JSONL (Claude Code sessions, plain message-per-line files) is read line by line, so a large
    // session is never held as one string next to its parsed lines.
    const firstLine = format === undefined ? await firstJsonLine(path) : undefined;
    if (format === 'claude-code' || (format === undefined && isClaudeCodeLine(firstLine))) {
      return withLineWarnings(async (warnings) =>
        claudeCodeFromLines(await readJsonLines(path, warnings), path),
      );
    }
    if (format === 'codex' || (format === undefined && isCodexRolloutLine(firstLine))) {
      return withLineWarnings(async (warnings) => codexFromLines(await readJsonLines(path, warnings), path));
    }
    if (format === undefined && isObject(firstLine) && Object.hasOwn(firstLine, 'role')) {
      const lines = await readJsonLines(path, []);
      const parsed = conversationFromValue(
        lines.map((line) => line.value),
        'jsonl',
        { source: path, lineNumbers: lines.map((line) => line.lineNumber) },
      );
      return plainConversationFromParsed(parsed, path);
    }
    return importTranscript(decodeUtf8(await readFile(path), path), { ...options, source: path });
  } catch (error) {
    if (isFileError(error)) {
      const reason =
        error.code === 'ENOENT' ? 'no such file' : error.code === 'EISDIR' ? 'is a directory' : error.message;
      throw new CompactError(reason, { code: 'UNREADABLE_INPUT', path, cause: error });
    }
    throw error;
  }
}

function isFileError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** The first non-empty line parsed as JSON, or undefined when it is not a whole JSON value. */
async function firstJsonLine(path: string): Promise<unknown> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      return tryParse(line.charCodeAt(0) === 0xfeff ? line.slice(1) : line).value;
    }
    return undefined;
  } finally {
    lines.close();
  }
}

async function readJsonLines(
  path: string,
  warnings: string[],
): Promise<Array<{ value: unknown; lineNumber: number }>> {
  const values: Array<{ value: unknown; lineNumber: number }> = [];
  for await (const entry of jsonFileLines(path, path, warnings)) values.push(entry);
  return values;
}

/** Runs an import that reads lines, and puts the warnings about the lines first in `meta.warnings`. */
function withLineWarnings(read: (warnings: string[]) => ImportedTranscript): ImportedTranscript;
function withLineWarnings(
  read: (warnings: string[]) => Promise<ImportedTranscript>,
): Promise<ImportedTranscript>;
function withLineWarnings(
  read: (warnings: string[]) => ImportedTranscript | Promise<ImportedTranscript>,
): ImportedTranscript | Promise<ImportedTranscript> {
  const warnings: string[] = [];
  const attach = (result: ImportedTranscript) => {
    if (warnings.length > 0) result.meta.warnings = [...warnings, ...(result.meta.warnings ?? [])];
    return result;
  };
  const result = read(warnings);
  return result instanceof Promise ? result.then(attach) : attach(result);
}

/**
 * Names the transcript format of a text: a Claude Code session, a SWE-agent or mini-swe-agent
 * trajectory, or a plain conversation (`anthropic` or `openai` is decided when it is parsed, so
 * this returns the canonical format, `anthropic`, for both).
 */
export function detectTranscriptFormat(text: string): TranscriptFormat {
  const whole = tryParse(text);
  if (whole.ok) {
    if (isMiniSweAgentTrajectory(whole.value)) return 'mini-swe-agent';
    if (isSweAgentTrajectory(whole.value)) return 'swe-agent';
    if (isClaudeCodeLine(whole.value)) return 'claude-code';
    if (isCodexRolloutLine(whole.value)) return 'codex';
    if (isGeminiCliChat(whole.value) || isGeminiCliRecord(whole.value)) return 'gemini-cli';
    if (isOpencodeExport(whole.value)) return 'opencode';
    return CANONICAL_FORMAT;
  }
  for (const line of text.split('\n', 20)) {
    if (line.trim() === '') continue;
    const parsed = tryParse(line);
    if (parsed.ok && isClaudeCodeLine(parsed.value)) return 'claude-code';
    if (parsed.ok && isCodexRolloutLine(parsed.value)) return 'codex';
    if (parsed.ok && isGeminiCliRecord(parsed.value)) return 'gemini-cli';
  }
  return CANONICAL_FORMAT;
}

function importDetected(body: string, source: string | undefined): ImportedTranscript {
  const whole = tryParse(body);
  if (whole.ok) {
    if (isMiniSweAgentTrajectory(whole.value)) return miniSweAgentFromValue(whole.value, source);
    if (isSweAgentTrajectory(whole.value)) return sweAgentFromValue(whole.value, source);
    if (isClaudeCodeLine(whole.value))
      return claudeCodeFromLines([{ value: whole.value, lineNumber: 1 }], source);
    if (isGeminiCliChat(whole.value) || isGeminiCliRecord(whole.value)) {
      return geminiCliFromRecords([whole.value], source);
    }
    if (isOpencodeExport(whole.value)) return opencodeFromExport(whole.value, source);
    return importResponses(body, whole, source, 'detect');
  }
  const detected = detectTranscriptFormat(body);
  if (detected === 'claude-code')
    return withLineWarnings((warnings) => claudeCodeFromLines(jsonTextLines(body, source, warnings), source));
  if (detected === 'codex')
    return withLineWarnings((warnings) => codexFromLines(jsonTextLines(body, source, warnings), source));
  if (detected === 'gemini-cli') return geminiCliFromRecords(geminiCliValues(body, source), source);
  return importResponses(body, whole, source, 'detect');
}

/**
 * A Responses transcript: a log of requests (JSONL, or a JSON array, of request bodies), else a
 * plain Responses conversation (`{ instructions, input }`, items, or JSONL items). `whole` is the
 * body already parsed as one JSON value by the caller, so it is not parsed again here.
 */
function importResponses(
  body: string,
  whole: ParsedBody,
  source: string | undefined,
  format: 'detect' | WireFormat,
) {
  const sourceOption = source === undefined ? {} : { source };
  const geminiLog = geminiRequestLog(body, whole, source);
  if (geminiLog) return geminiLog;
  if (
    whole.ok &&
    Array.isArray(whole.value) &&
    whole.value.length > 0 &&
    whole.value.every(isResponsesRequestLine)
  ) {
    return responsesRequestsFromLines(
      whole.value.map((value, index) => ({ value, lineNumber: index + 1 })),
      source,
    );
  }
  if (!whole.ok) {
    const first = body.split('\n').find((line) => line.trim() !== '');
    if (first !== undefined && isResponsesRequestLine(tryParse(first).value)) {
      return responsesRequestsFromLines(jsonLines(body, source), source);
    }
  }
  return importPlainConversation(body, format === 'detect' ? sourceOption : { format, ...sourceOption });
}

/** A log of Gemini `generateContent` requests (JSONL, or a JSON array), if the body is one. */
function geminiRequestLog(body: string, whole: ParsedBody, source: string | undefined) {
  if (whole.ok) {
    // One `{ request, response }` pair is a log of one line; one bare body is a plain conversation.
    const { value } = whole;
    const log = Array.isArray(value) ? value : isObject(value) && isObject(value.request) ? [value] : [];
    if (log.length === 0 || !log.every(isGeminiRequestLine)) return undefined;
    return geminiRequestsFromLines(
      log.map((line, index) => ({ value: line, lineNumber: index + 1 })),
      source,
    );
  }
  const first = body.split('\n').find((line) => line.trim() !== '');
  if (first === undefined || !isGeminiRequestLine(tryParse(first).value)) return undefined;
  return geminiRequestsFromLines(jsonLines(body, source), source);
}

/** A text parsed as one JSON value, or the note that it is not one. */
type ParsedBody = { ok: true; value: unknown } | { ok: false; value?: undefined };

function tryParse(text: string): ParsedBody {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** A saved chat as its records: one JSON document, or one record per line. */
function geminiCliValues(body: string, source: string | undefined): unknown[] {
  const whole = tryParse(body);
  return whole.ok ? [whole.value] : jsonLines(body, source).map((line) => line.value);
}

function parseWhole(body: string, source: string | undefined): unknown {
  return parseJsonText(body, source);
}

function jsonLines(body: string, source: string | undefined): Array<{ value: unknown; lineNumber: number }> {
  const values: Array<{ value: unknown; lineNumber: number }> = [];
  body.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    values.push({ value: parseJsonLine(line, index + 1, source), lineNumber: index + 1 });
  });
  return values;
}
