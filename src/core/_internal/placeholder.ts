import type { ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import {
  countLines,
  formatCount,
  pathTail,
  safeJson,
  shortenLine,
  shortenMiddle,
  toolResultText,
} from './text.js';

/** About what one placeholder costs in tokens, to estimate what masking frees. */
export const placeholderTokens = 30;
/** Results smaller than this are never masked: a placeholder would save next to nothing. */
export const minMaskableTokens = 2 * placeholderTokens;
/** A placeholder's key argument is cut to this many characters: enough for a path or a command. */
const KEY_ARGUMENT_CHARS = 60;
/** The quoted error line of a placeholder is cut to this many characters. */
const ERROR_LINE_CHARS = 100;
/** How much of a result is read for its outcome: failures show near the start or in a summary. */
const OUTCOME_SCAN_CHARS = 50_000;
const OUTCOME_SCAN_LINES = 2000;

// The argument that says what a call did comes first: what a search looked for (a grep's `path`
// only says where), then a shell's command, then a file tool's path.
const keyArgumentNames = [
  'pattern',
  'query',
  'command',
  'cmd',
  'path',
  'file_path',
  'filePath',
  'filename',
  'file',
  'url',
  'id',
];

/** Arguments that name a file: shortened from their start, so the file name stays. */
const pathArgumentNames = new Set(['path', 'file_path', 'filePath', 'filename', 'file']);

/**
 * The argument that best says what a tool call did: its pattern or query, command, or path,
 * shortened — a path by its start (`…/strategy/cleanup.go`), anything else by its middle, so two
 * reads of files in one deep folder do not read the same.
 */
export function keyArgument(input: unknown): string {
  if (typeof input === 'string') return shortenMiddle(input, KEY_ARGUMENT_CHARS);
  if (typeof input !== 'object' || input === null) return '';
  const record = input as Record<string, unknown>;
  for (const name of keyArgumentNames) {
    const value = record[name];
    if (typeof value !== 'string' || value.trim() === '') continue;
    return pathArgumentNames.has(name)
      ? pathTail(value, KEY_ARGUMENT_CHARS)
      : shortenMiddle(value, KEY_ARGUMENT_CHARS);
  }
  for (const value of Object.values(record)) {
    if (typeof value === 'string' && value.trim() !== '') return shortenMiddle(value, KEY_ARGUMENT_CHARS);
  }
  return '';
}

// A harness's exit line opens a line (`Exit code 1`, `Process exited with code 1`, `[exit code 3]`):
// a file or a log that says "exit code 1" mid-line is text, not this call's outcome.
const exitCodePatterns = [
  /<returncode>\s*(-?\d+)\s*<\/returncode>/i,
  /^\s*\[?(?:process |command )?exit(?:ed with)? (?:code|status)[: ]\s*(-?\d+)/im,
];
const errorLinePattern =
  /\b(error|exception|traceback|failed|failure|fatal|panic|denied|not found|no such file|cannot)\b/i;
// Go's test verdict (`--- FAIL: TestX`), upper case only: `fail` in prose is no error line.
const goFailure = /\bFAIL\b/;
// A line naming an exception class: `ValueError: …`, `AssertionError`, `java.io.IOException`.
const exceptionClass = /\b[A-Z]\w*(Error|Exception)\b/;
/**
 * A compiler's diagnostic, `path:line:col: message` (go build, tsc --pretty false, rustc's `-->`
 * aside, gcc): it says what failed where no error word does (`undefined: defaultAgent`), and comes
 * after headers that say nothing (go build's `# package`).
 */
const diagnosticLine = /^[\w./-]+\.\w+:\d+:\d+: \S/;

// Output that says a command failed even without an exit code line: pytest's summary
// (`2 failed, 3 passed`, `FAILED tests/…`), an uncaught traceback, a shell's `command not found`.
const failureSignals = [
  /^=+ .*\b\d+ (failed|errors?)\b.* =+$/m,
  /^FAILED /m,
  /^Traceback \(most recent call last\):/m,
  /: command not found$/m,
];
// Compiler and tool errors count only when the output opens with them (a file may quote them).
const openingFailure = /^(npm ERR!|error(\[E\d+\])?:|fatal:)/im;
const OPENING_LINES = 3;

/** What a tool result says of its call: whether it failed, its exit code and first error line. */
export type ToolOutcome = { failed: boolean; exitCode?: number; errorLine?: string };

/**
 * The last outcome read from each result block whose content is its text: the ledger, micro's
 * placeholder and the extractive summary all read the same result, and its patterns scan up to
 * 50,000 characters each time. Only a string content is kept as the key's check (the block holds
 * it anyway); the text of a content in parts is joined anew by each caller, and keeping that copy
 * for as long as the block lives would cost more memory than reading it again costs time.
 */
const outcomes = new WeakMap<ToolResultBlock, { text: string; isError: unknown; outcome: ToolOutcome }>();

/** The outcome of a tool result: whether it failed, its exit code and first error line where seen. */
export function toolOutcome(block: ToolResultBlock, text: string): ToolOutcome {
  const known = outcomes.get(block);
  if (known !== undefined && known.text === text && known.isError === block.is_error) return known.outcome;
  const outcome = readOutcome(block, text);
  if (text === block.content) outcomes.set(block, { text, isError: block.is_error, outcome });
  return outcome;
}

function readOutcome(block: ToolResultBlock, text: string): ToolOutcome {
  let exitCode: number | undefined;
  for (const pattern of exitCodePatterns) {
    const match = pattern.exec(text);
    if (match?.[1] !== undefined) {
      exitCode = Number(match[1]);
      break;
    }
  }
  return outputOutcome(block.is_error === true, text, exitCode);
}

/**
 * The outcome of what a call printed, its exit code known: also of a shell result read apart from
 * its harness's wrapping (Codex's `Command: …` header, which repeats the command), so the error
 * line is one the command printed.
 */
export function outputOutcome(isError: boolean, text: string, exitCode: number | undefined): ToolOutcome {
  const plain = text.slice(0, OUTCOME_SCAN_CHARS).replace(ansiEscapes, '');
  const failed = isError || (exitCode !== undefined ? exitCode !== 0 : hasFailureSignal(plain));
  // A result not flagged as failed gets an error line only when it opens with one, so a file that
  // merely mentions errors is not reported as a failure.
  const line = failed ? errorLineOf(plain) : openingErrorLine(plain);
  const errorLine = line === undefined ? undefined : shortenLine(line, ERROR_LINE_CHARS);
  return { failed, ...(exitCode === undefined ? {} : { exitCode }), ...(errorLine ? { errorLine } : {}) };
}

/**
 * The line of a failed command's output that says what failed (the exception line ending a Python
 * traceback, else the first line naming an error, else the first line); undefined when it printed
 * nothing. The same reading as a result's {@link toolOutcome}, for output already unwrapped.
 */
export function failureLine(output: string): string | undefined {
  return errorLineOf(output.slice(0, OUTCOME_SCAN_CHARS).replace(ansiEscapes, ''));
}

/**
 * A line of a file as a read or a search shows it (`  141→…`, `332:…`, `src/a.go:211:…`): code or
 * prose that may say `error` (`(string, error)`), not a message the command printed. A compiler's
 * diagnostic (`a.go:3:2: …`) is a message.
 */
const quotedFileLine = /^\s*\d+(?:→|\t|[:-])|^[^\s:]+:\d+[:-]/;

/**
 * The opening line of a result not flagged as failed that is an error message the command
 * printed (a linter's diagnostic, `Error: …`), or undefined: that line itself, not one further on.
 */
function openingErrorLine(text: string): string | undefined {
  return text
    .split('\n', OPENING_LINES)
    .map((line) => line.trim())
    .find(
      (line) =>
        errorLinePattern.test(line) &&
        !wrapperLine.test(line) &&
        (diagnosticLine.test(line) || !quotedFileLine.test(line)),
    );
}

function hasFailureSignal(text: string): boolean {
  return (
    failureSignals.some((pattern) => pattern.test(text)) ||
    openingFailure.test(text.split('\n', OPENING_LINES).join('\n'))
  );
}

const ansiEscapes = /\u001b\[[0-9;?]*[A-Za-z]/g;
// Lines that are the harness's wrapping, not output: <returncode>0</returncode>, <output>, …
const wrapperLine = /^\s*<\/?[a-z_]+>[^<]*(<\/[a-z_]+>)?\s*$/i;

/**
 * The line that says what went wrong: for a Python traceback the exception line that ends it
 * (`ValueError: …`), otherwise the first line with an error word (pytest's `E ` prefix dropped).
 */
function errorLineOf(text: string): string | undefined {
  const lines = text.split('\n', OUTCOME_SCAN_LINES);
  const traceback = lines.findIndex((line) =>
    line.trimStart().startsWith('Traceback (most recent call last)'),
  );
  if (traceback !== -1) {
    const indent = lines[traceback]!.length - lines[traceback]!.trimStart().length;
    const exception = lines
      .slice(traceback + 1)
      .find(
        (line) =>
          line.trim() !== '' && line.length - line.trimStart().length <= indent && !wrapperLine.test(line),
      );
    if (exception !== undefined) return exception.trim();
  }
  const candidates = lines
    .filter((line) => line.trim() !== '' && !wrapperLine.test(line))
    .map((line) => line.replace(/^E\s+/, '').trim());
  return (
    candidates.find((line) => exceptionClass.test(line)) ??
    candidates.find((line) => errorLinePattern.test(line) || goFailure.test(line)) ??
    candidates.find((line) => diagnosticLine.test(line)) ??
    candidates[0]
  );
}

/**
 * The archive id a placeholder names: `r17` when the model can recall the original by it;
 * `{ archived: 'r17' }` when it cannot but two originals could read the same (a client that
 * reuses tool call ids), so a rebuild tells them apart; undefined for none.
 */
export type PlaceholderId = string | { archived: string } | undefined;

/**
 * What a placeholder ends with: `; recall r17` when the model can recall the original by that id,
 * `; archived r17` when it names the id for a rebuild only, nothing otherwise (the compactor's
 * `recall: false`; the original is archived all the same).
 */
function recallMarker(archiveId: PlaceholderId): string {
  if (archiveId === undefined) return '';
  return typeof archiveId === 'string' ? `; recall ${archiveId}` : `; archived ${archiveId.archived}`;
}

/** A placeholder's end: its recall (or archive) marker, if any, and the closing bracket. */
const placeholderEnd = /(?:; (?:recall|archived) (r\d+))?\]\s*$/;
const shortenedEnd = /…shortened; [^\]\n]*\]\s*$/;

/**
 * True when `text` has the shape of a placeholder the core writes, with or without a recall id
 * (whether this session wrote it is for the caller to check against its archive ids).
 */
export function isPlaceholderText(text: string): boolean {
  if (text.startsWith('[Previous: used ') || text.startsWith('[elided:')) return placeholderEnd.test(text);
  return shortenedEnd.test(text);
}

/** Finds the archive id a placeholder names, or undefined for ordinary text or a placeholder without one. */
export function archiveIdInPlaceholder(text: string): string | undefined {
  return isPlaceholderText(text) ? placeholderEnd.exec(text)?.[1] : undefined;
}

/**
 * The one-line placeholder that replaces a tool result, e.g.
 * `[Previous: used read_file(src/app.ts) → 412 lines, 3.1k tokens; defines createApp, AppOptions (+3); recall r17]`.
 */
export function toolResultPlaceholder(options: {
  toolUse: ToolUseBlock | undefined;
  result: ToolResultBlock;
  tokens: number;
  /** The archive id to name (see {@link PlaceholderId}). */
  archiveId: PlaceholderId;
  /** A few words of what the result said (`defines …`, `found in …`), from `placeholderDetails`. */
  details?: string | undefined;
  /** The outcome read apart from a harness's wrapping (`outputOutcome`); else read from the text. */
  outcome?: ToolOutcome | undefined;
}): string {
  const { toolUse, result, tokens, archiveId, details } = options;
  const text = toolResultText(result);
  const name = toolUse ? String(toolUse.name) : 'tool';
  const argument = toolUse ? keyArgument(toolUse.input) : '';
  const outcome = options.outcome ?? toolOutcome(result, text);
  const facts: string[] = [];
  if (outcome.exitCode !== undefined) facts.push(`exit ${outcome.exitCode}`);
  else if (outcome.failed) facts.push('error');
  facts.push(`${formatCount(countLines(text))} lines`, `${formatCount(tokens)} tokens`);
  const error = outcome.errorLine ? `; ${JSON.stringify(outcome.errorLine)}` : '';
  const said = details ? `; ${details}` : '';
  return `[Previous: used ${name}(${argument}) → ${facts.join(', ')}${error}${said}${recallMarker(archiveId)}]`;
}

/**
 * The placeholder of a result a later copy made stale, pointing at that copy, e.g.
 * `[Previous: used Read(src/app.ts) → superseded by the newer copy in toolu_9; recall r17]`.
 */
export function supersededPlaceholder(options: {
  toolUse: ToolUseBlock | undefined;
  newerToolUseId: string;
  /** The archive id to name (see {@link PlaceholderId}). */
  archiveId: PlaceholderId;
}): string {
  const { toolUse, newerToolUseId, archiveId } = options;
  const call = toolUse ? `${String(toolUse.name)}(${keyArgument(toolUse.input)})` : 'tool()';
  return `[Previous: used ${call} → superseded by the newer copy in ${newerToolUseId}${recallMarker(archiveId)}]`;
}

/** What marks a block cut short, its whole in the archive. */
export const shortenedMark = '…shortened;';

/** What a shortened block's trailing note says (`archiveId` undefined: no recall id named). */
export function shortenedNote(archiveId: PlaceholderId, tokens: number): string {
  return ` [${shortenedMark} ${formatCount(tokens)} tokens in full${recallMarker(archiveId)}]`;
}

/** True for a tool input field this library elided (`[elided: …]`). */
export function isElidedField(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('[elided:');
}

/**
 * The text that stands in for a large elided tool input field (`archiveId` undefined: none named),
 * with a few words of what it held (`details`, e.g. `defines …`).
 */
export function elidedInputText(
  value: unknown,
  tokens: number,
  archiveId: PlaceholderId,
  details?: string,
): string {
  const size = typeof value === 'string' ? `${formatCount(countLines(value))} lines, ` : '';
  const said = details ? `; ${details}` : '';
  return `[elided: ${size}${formatCount(tokens)} tokens${said}${recallMarker(archiveId)}]`;
}

export { safeJson };
