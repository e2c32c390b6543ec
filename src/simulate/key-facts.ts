/**
 * Key facts of a tool call and how many of them a request still shows, for the replay's retention
 * figure. A call's key facts are:
 *
 * - its key argument: the first of `path`, `file_path`, `filePath`, `filename`, `file`, `command`,
 *   `cmd`, `pattern`, `query`, `url` in the `tool_use` input (a string input counts too): its first
 *   line, whitespace collapsed, cut to {@link argumentFactLength} characters (the head names the
 *   file or command; a placeholder that keeps the head keeps the fact);
 * - its exit code, when the result states one and it is not 0 (`<returncode>N</returncode>`,
 *   `exit code N`, `exit status N`, `exited with code N`); a 0 says only that it worked;
 * - for a call that failed (`is_error`, or a non-zero exit code), its first error line: the first
 *   result line that reads like an error (the exception line that ends a Python traceback, else
 *   `KeyError: …`, `error: …`, `FAILED …`, `No such file or directory`, …; lines of harness
 *   markup such as `<returncode>1</returncode>` are skipped, and so is Codex's wrapping before
 *   `Output:`, which repeats the command), else its
 *   first line; terminal escape codes and pytest's `E` gutter removed, whitespace collapsed, cut to
 *   {@link errorFactLength} characters. Calls that worked have no error line: a file that contains
 *   the word "Error" is not a failure.
 *
 * A fact is visible when its text is a substring of the request's text, escape codes removed and
 * whitespace collapsed (system, text blocks, `tool_use` names and the strings of their inputs, tool result text,
 * thinking). An exit code is visible when the text states that code in any of the notations above
 * or as `exit N`; it is not tied to its call, so a code other calls also returned reads as visible.
 */
import type { ContentBlock, Message, SystemPrompt, ToolResultBlock, ToolUseBlock } from 'agent-compact';

/** Key arguments are cut to this many characters. */
export const argumentFactLength = 40;

/** Error lines are cut to this many characters. */
export const errorFactLength = 60;

/** What kind of fact. */
export type KeyFactKind = 'argument' | 'exit-code' | 'error-line';

/** One fact of one tool call. */
export interface KeyFact {
  kind: KeyFactKind;
  /** The text looked for (for `exit-code`, the code as digits). */
  text: string;
}

const argumentKeys = [
  'path',
  'file_path',
  'filePath',
  'filename',
  'file',
  'command',
  'cmd',
  'pattern',
  'query',
  'url',
];

const exitCodePatterns = [
  /<returncode>\s*(-?\d+)\s*<\/returncode>/,
  /\bexit(?:ed with)?(?: code| status)\s*[:=]?\s*(-?\d+)\b/i,
];

const errorClassPattern = /\b[A-Z]\w*(?:Error|Exception)\b/;
const errorWordPattern =
  /^(?:error|fatal|panic)\b|\bFAIL(?:ED|URE)?\b|No such file or directory|command not found|Permission denied|\bnot found\b|\bcannot\b|\bfailed\b/i;

// Terminal colour and cursor codes: not content, and a placeholder or summary may drop them.
const ansiEscapePattern = /\u001b\[[0-9;?]*[A-Za-z]/g;

// Lines that are only harness markup, e.g. mini-swe-agent's `<returncode>1</returncode>` or `<output>`.
const markupLinePattern = /^<\/?[A-Za-z_]+>(?:[^<]*<\/[A-Za-z_]+>)?$/;
// Codex's wrapping of a shell output, before what the command printed: `Command: …`, `Chunk ID`,
// `Wall time`, `Process exited with code N`, … `Output:` (or `Exit code: N`, `Wall time`, `Output:`).
const codexOutputHeader =
  /^(?:Command: [^\n]*\n(?:(?!Output:\n)[^\n]*\n){0,8}?|Exit code: -?\d+\n(?:Wall time: [^\n]*\n)?)Output:\n(?:Total output lines: \d+\n)?/;

/** Removes terminal escape codes, collapses whitespace runs to one space and trims. */
export function collapseWhitespace(text: string): string {
  return text.replace(ansiEscapePattern, '').replace(/\s+/g, ' ').trim();
}

function cut(text: string, length: number): string {
  const line = collapseWhitespace(text.split('\n')[0] ?? '');
  return line.length > length ? line.slice(0, length) : line;
}

/** The text of a tool result: its string content or its text blocks joined by newlines. */
export function toolResultText(block: ToolResultBlock): string {
  if (block.content === undefined) return '';
  if (typeof block.content === 'string') return block.content;
  return block.content
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('\n');
}

function keyArgument(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  for (const key of argumentKeys) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return undefined;
}

/** The non-zero exit code a tool result states, or undefined. */
export function exitCodeOf(resultText: string): number | undefined {
  for (const pattern of exitCodePatterns) {
    const match = pattern.exec(resultText);
    if (match?.[1] !== undefined) {
      const code = Number(match[1]);
      return code === 0 ? undefined : code;
    }
  }
  return undefined;
}

/** The exception line of the first Python traceback in the text: the first unindented line after it. */
function tracebackExceptionLine(resultText: string): string | undefined {
  const lines = resultText.replace(ansiEscapePattern, '').split('\n');
  const start = lines.findIndex((line) => /^\s*Traceback \(most recent call last\):/.test(line));
  if (start === -1) return undefined;
  const indent = /^\s*/.exec(lines[start]!)![0].length;
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '' || /^\s*/.exec(line)![0].length > indent) continue;
    return markupLinePattern.test(line.trim()) ? undefined : line;
  }
  return undefined;
}

/** The first error line of a failed call's result (see the module comment), or undefined. */
export function firstErrorLine(wrappedText: string): string | undefined {
  const resultText = wrappedText.replace(codexOutputHeader, '');
  const exceptionLine = tracebackExceptionLine(resultText);
  if (exceptionLine !== undefined) return cut(exceptionLine, errorFactLength);
  const lines = resultText
    .split('\n')
    .map((line) => collapseWhitespace(line).replace(/^E\s+/, ''))
    .filter((line) => line !== '' && !markupLinePattern.test(line));
  const errorLine =
    lines.find((line) => errorClassPattern.test(line) || errorWordPattern.test(line)) ?? lines[0];
  return errorLine === undefined ? undefined : cut(errorLine, errorFactLength);
}

/** The key facts of one tool call (see the module comment). */
export function extractKeyFacts(toolUse: ToolUseBlock, result: ToolResultBlock): KeyFact[] {
  const facts: KeyFact[] = [];
  const argument = keyArgument(toolUse.input);
  if (argument !== undefined && cut(argument, argumentFactLength) !== '') {
    facts.push({ kind: 'argument', text: cut(argument, argumentFactLength) });
  }
  const text = toolResultText(result);
  const exitCode = exitCodeOf(text);
  if (exitCode !== undefined) facts.push({ kind: 'exit-code', text: String(exitCode) });
  if (exitCode !== undefined || result.is_error === true) {
    const errorLine = firstErrorLine(text);
    if (errorLine !== undefined) facts.push({ kind: 'error-line', text: errorLine });
  }
  return facts;
}

function collectStrings(value: unknown, into: string[]): void {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) collectStrings(item, into);
  }
}

function blockText(block: ContentBlock, into: string[]): void {
  switch (block.type) {
    case 'text':
      into.push(String(block.text ?? ''));
      return;
    case 'thinking':
      into.push(String(block.thinking ?? ''));
      return;
    case 'tool_use':
      into.push(String(block.name ?? ''));
      collectStrings(block.input, into);
      return;
    case 'tool_result':
      into.push(toolResultText(block as ToolResultBlock));
      return;
    default:
      return;
  }
}

/** Everything a model would read in a request, as one string with whitespace collapsed. */
export function requestText(system: SystemPrompt | undefined, messages: readonly Message[]): string {
  const parts: string[] = [];
  if (typeof system === 'string') parts.push(system);
  else if (system) for (const block of system) parts.push(block.text);
  for (const message of messages) {
    if (typeof message.content === 'string') parts.push(message.content);
    else for (const block of message.content) blockText(block, parts);
  }
  return collapseWhitespace(parts.join('\n'));
}

/** True when the fact can be read in the text {@link requestText} made. */
export function isFactVisible(fact: KeyFact, text: string): boolean {
  switch (fact.kind) {
    case 'argument':
    case 'error-line':
      return text.includes(fact.text);
    case 'exit-code': {
      const code = fact.text.replace('-', '\\-');
      return new RegExp(
        `<returncode>\\s*${code}\\s*</returncode>|\\bexit(?:ed with)?(?: code| status)?\\s*[:=]?\\s*${code}(?![\\d])`,
        'i',
      ).test(text);
    }
    default: {
      const unreachable: never = fact.kind;
      throw new Error(`unknown fact kind ${String(unreachable)}`);
    }
  }
}
