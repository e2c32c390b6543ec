/**
 * Reads of one file's text, by a read tool or by a shell command that does nothing but print the
 * file (or a line range of it), and the text such a read shows. Files back and the working set
 * both take their reads from here, so a `cat`, `sed -n '10,80p'`, `nl -ba f | sed -n`, `head` or
 * SWE-agent `open` counts the way a Read call does. Only unambiguous forms count: one file, no
 * pipes but `nl -ba f | sed -n 'a,bp'`, no globs or variables; anything else stays a command.
 */
import { fileName } from '../_internal/text.js';
import { codexExecCalls } from '../ledger/codex-exec-call.js';
import { readShellOutput, type ShellOutput } from '../ledger/shell-output.js';
import type { ToolCallFact } from '../ledger/tool-call-facts.js';
import type { ToolUseBlock } from '../model/messages.js';
import { type ShownText, stripLineNumbers } from './outline-file.js';
import { inDirectory } from './same-file.js';

/** One read of a file: the path, whether it asked for the whole file, and how the result shows it. */
export interface FileRead {
  path: string;
  /** False when the call asked for part of the file (an offset, a limit, a line range). */
  whole: boolean;
  /**
   * How the result shows the text: `numbered` as a read tool or `cat -n` / `nl -ba` (numbers
   * stripped), `plain` as `cat` / `sed -n` (from `firstLine`), `window` as SWE-agent's `open`.
   */
  shape: 'numbered' | 'plain' | 'window';
  /** For a `plain` read, the line its output starts at; for a `numbered` one, where an output without numbers starts. */
  firstLine: number;
}

/** Arguments of a read tool that ask for part of a file. */
const partArguments = ['offset', 'limit', 'view_range', 'start_line', 'end_line'];
/** A path as one shell word: bare, or quoted without spaces; no globs, variables or `~`. */
const pathWord = String.raw`(?:'([^'\s*?$~]+)'|"([^"\s*?$~\\]+)"|([\w@%+,./:=-]+))`;
/** A `sed` line range script: `10,80p`, `10p`, quoted or not. */
const sedScript = String.raw`(?:'(\d+)(?:,(\d+))?p'|"(\d+)(?:,(\d+))?p"|(\d+)(?:,(\d+))?p)`;
const catRead = new RegExp(String.raw`^cat(\s+-n)?\s+${pathWord}$`);
const sedRead = new RegExp(String.raw`^sed\s+-n\s+${sedScript}\s+${pathWord}$`);
const numberedSedRead = new RegExp(
  String.raw`^(?:nl\s+-ba|cat\s+-n)\s+${pathWord}\s*\|\s*sed\s+-n\s+${sedScript}$`,
);
const headRead = new RegExp(String.raw`^head(?:\s+-n\s*(\d+)|\s+-(\d+))?\s+${pathWord}$`);
const openRead = new RegExp(String.raw`^open\s+${pathWord}(?:\s+(\d+))?$`);
/** mini-swe-agent's result: `<returncode>0</returncode>` then the output in `<output>` tags. */
const miniSweEnvelope = /^<returncode>(-?\d+)<\/returncode>\n<output>\n([\s\S]*)<\/output>\s*$/;
/** SWE-agent's window: `[File: path (N lines total)]`, then `12:text` lines. */
const windowHeader = /^\[File: .+ \((\d+) lines total\)\]$/;
const windowLine = /^(\d+):(.*)$/;
const windowNote = /^\(\d+ more lines (?:above|below)\)$/;
/** Gemini CLI's read of part of a file: a note saying which lines, then the text as it is. */
const geminiPartNote =
  /^\s*IMPORTANT: The file content has been truncated\.\nStatus: Showing lines (\d+)-\d+ of \d+ total lines\.\n[\s\S]*?\n--- FILE CONTENT \(truncated\) ---\n/;
/** A harness's note in a read's result (`<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>`). */
const harnessNotes = /<system-reminder>[\s\S]*?<\/system-reminder>/g;
/** Redirects that write no file: `2>&1`, `> /dev/null`. */
const harmlessRedirect = /\d?>&\d|\d?>\s*\/dev\/null/g;
/**
 * A code formatter's run, up to the next `;`, `&` or `|`: it changes a file's layout, not its code,
 * so the text read before still places the agent's edits (the next one is most often in code it
 * just wrote), where dropping it would leave the file unknown until read again.
 */
const formatterRun =
  /\b(?:gofmt|goimports|go\s+fmt|prettier|black|ruff\s+format|rustfmt|cargo\s+fmt|biome\s+format|clang-format|dart\s+format|mix\s+format|swiftformat)\b[^;&|]*/g;
/** Shell words that may change the file a command names (the text read before is stale after). */
const changingCommand =
  /\bsed\s+-[a-z]*i|>|\bperl\s+-[a-z]*i|\b(?:mv|cp|rm|touch|truncate|patch|tee|dd)\s|\bgit\s+(?:checkout|restore|apply|stash|reset|am|cherry-pick|merge|rebase)\b|\s-w\b|--write\b|\bopen\(|\bwrite_text\(|\bedit\s/;

/**
 * The part of a file a read tool's call asks for, as its range arguments (`offset=100 limit=50`),
 * or undefined when it reads the whole file. Claude Code and opencode: `offset`, `limit`; Gemini
 * CLI: `start_line`, `end_line`; the text editor: `view_range`.
 */
export function readPart(use: ToolUseBlock): string | undefined {
  const input = (typeof use.input === 'object' && use.input !== null ? use.input : {}) as Record<
    string,
    unknown
  >;
  const part = partArguments
    .filter((name) => input[name] !== undefined)
    .map((name) => `${name}=${JSON.stringify(input[name])}`);
  return part.length === 0 ? undefined : part.join(' ');
}

/** The file `use` reads (per `fact`), or undefined when it reads none or not exactly one. */
export function fileReadOf(use: ToolUseBlock, fact: ToolCallFact): FileRead | undefined {
  const input = (typeof use.input === 'object' && use.input !== null ? use.input : {}) as Record<
    string,
    unknown
  >;
  if (fact.kind === 'read') {
    const path = fact.paths[0];
    if (path === undefined) return undefined;
    const whole = readPart(use) === undefined;
    const start = Number(input.start_line);
    return { path, whole, shape: 'numbered', firstLine: Number.isInteger(start) && start > 0 ? start : 1 };
  }
  if (fact.kind === 'command') {
    const read = shellRead(fact.command);
    // Codex runs each command in a `workdir` of its own; its edits name files by absolute path.
    return read && { ...read, path: inDirectory(workdirOf(use, input), read.path) };
  }
  // SWE-agent's own `open` tool (its importer names the call after it).
  if (String(use.name).toLowerCase() === 'open' && typeof input.command === 'string') {
    return shellRead(input.command);
  }
  return undefined;
}

/** The directory a shell call runs in: its `workdir`, or that of the one call a Codex `exec` script makes. */
function workdirOf(use: ToolUseBlock, input: Record<string, unknown>): unknown {
  const nested = codexExecCalls(use);
  if (nested === undefined) return input.workdir;
  return nested.length === 1 ? (nested[0]!.input as { workdir?: unknown }).workdir : undefined;
}

/** The file a shell command only prints, or undefined for any other command. */
export function shellRead(command: string): FileRead | undefined {
  const line = command.trim();
  if (line.includes('\n')) return undefined;
  let match = catRead.exec(line);
  if (match) {
    const path = pathOf(match, 2);
    return path === undefined
      ? undefined
      : { path, whole: true, shape: match[1] ? 'numbered' : 'plain', firstLine: 1 };
  }
  match = sedRead.exec(line);
  if (match) {
    const path = pathOf(match, 7);
    const range = rangeOf(match, 1);
    return path === undefined || range === undefined
      ? undefined
      : { path, whole: false, shape: 'plain', firstLine: range };
  }
  match = numberedSedRead.exec(line);
  if (match) {
    const path = pathOf(match, 1);
    return path === undefined || rangeOf(match, 4) === undefined
      ? undefined
      : { path, whole: false, shape: 'numbered', firstLine: 1 };
  }
  match = headRead.exec(line);
  if (match) {
    const path = pathOf(match, 3);
    // `head` may stop before the end: a part from line 1.
    return path === undefined ? undefined : { path, whole: false, shape: 'plain', firstLine: 1 };
  }
  match = openRead.exec(line);
  if (match) {
    const path = pathOf(match, 1);
    return path === undefined ? undefined : { path, whole: false, shape: 'window', firstLine: 1 };
  }
  return undefined;
}

/** What a read showed of its file: the text, its first line, and whether it is all of the file. */
export interface ShownRead extends ShownText {
  whole: boolean;
}

/**
 * The file's text as `result` shows it for `read`, or undefined when the result is not the file's
 * text (a failed command, a cut output, an empty window). `wrapping`: the harness's shell wrapping
 * of `result` when the caller has read it already (the ledger has), null when it has none.
 */
export function shownRead(
  read: FileRead,
  result: string,
  wrapping: ShellOutput | null = readShellOutput(result) ?? null,
): ShownRead | undefined {
  const output = unwrapped(result, wrapping);
  if (output === undefined) return undefined;
  switch (read.shape) {
    case 'numbered': {
      // Claude Code's note on an empty file or an offset past its end, alone: none of its text.
      if (output.replace(harnessNotes, '').trim() === '') return undefined;
      const part = geminiPart(output);
      if (part) return { ...part, whole: false };
      const shown = stripLineNumbers(output, read.firstLine);
      const { cut, ...text } = shown;
      return { ...text, whole: read.whole && shown.firstLine === 1 && !cut };
    }
    case 'plain':
      if (output.trim() === '') return undefined;
      return { text: output.replace(/\n$/, ''), firstLine: read.firstLine, whole: read.whole };
    case 'window':
      return windowText(output);
    default: {
      const exhaustive: never = read.shape;
      throw new Error(`unknown read shape ${JSON.stringify(exhaustive)}`);
    }
  }
}

/**
 * What the command printed, without its harness's wrapping (mini-swe-agent's `<returncode>`,
 * Codex's exec header, Gemini CLI's trailer lines), or undefined when it failed, still runs or was
 * cut by the harness: then the text is not the file's.
 */
function unwrapped(result: string, shell: ShellOutput | null): string | undefined {
  const envelope = miniSweEnvelope.exec(result);
  if (envelope) return envelope[1] === '0' ? envelope[2]! : undefined;
  if (result.startsWith('<returncode>')) return undefined;
  if (shell === null) return result;
  const failed = shell.exitCode !== undefined && shell.exitCode !== 0;
  return failed || shell.sessionId !== undefined || shell.truncated ? undefined : shell.output;
}

/** True when `command` names `path` and may change it (`sed -i`, a redirect, `git checkout`, …). */
export function mayChange(command: string, path: string): boolean {
  const name = fileName(path);
  if (name === '' || !command.includes(name)) return false;
  return changingCommand.test(command.replace(formatterRun, '').replace(harmlessRedirect, ''));
}

/** SWE-agent's window without its header, notes and `12:` line numbers; whole when it shows every line. */
function windowText(output: string): ShownRead | undefined {
  const lines = output.split('\n');
  const header = windowHeader.exec(lines[0]?.trim() ?? '');
  if (!header) return undefined;
  const text: string[] = [];
  let firstLine: number | undefined;
  for (const line of lines.slice(1)) {
    if (windowNote.test(line.trim())) continue;
    const match = windowLine.exec(line);
    if (!match) {
      if (line.trim() === '') continue;
      break;
    }
    firstLine ??= Number(match[1]);
    text.push(match[2]!);
  }
  if (firstLine === undefined) return undefined;
  return { text: text.join('\n'), firstLine, whole: firstLine === 1 && text.length === Number(header[1]) };
}

function pathOf(match: RegExpExecArray, group: number): string | undefined {
  return match[group] ?? match[group + 1] ?? match[group + 2];
}

/** The first line of a `sed` range script (groups from `group`), or undefined when it is not one. */
function rangeOf(match: RegExpExecArray, group: number): number | undefined {
  for (let at = group; at < group + 6; at += 2) {
    if (match[at] === undefined) continue;
    const first = Number(match[at]);
    const last = match[at + 1] === undefined ? first : Number(match[at + 1]);
    return first >= 1 && last >= first ? first : undefined;
  }
  return undefined;
}

/** The text of a Gemini CLI read that showed part of its file, from the line its note names. */
function geminiPart(output: string): ShownText | undefined {
  const note = geminiPartNote.exec(output);
  return note
    ? { text: output.slice(note[0].length).replace(/\n$/, ''), firstLine: Number(note[1]) }
    : undefined;
}

/** Gemini CLI's `read_many_files` result: each file after a `--- path ---` line, then `--- End of content ---`. */
const manyFilesSeparator = /^--- (.+) ---$/;
const manyFilesEnd = '--- End of content ---';

/** True for a call that reads several files into one result (Gemini CLI's `read_many_files`). */
export function readsManyFiles(use: ToolUseBlock): boolean {
  return String(use.name) === 'read_many_files';
}

/** The files a `read_many_files` result holds, each whole, in order. */
export function manyFileReads(result: string): { read: FileRead; text: string }[] {
  const files: { read: FileRead; text: string }[] = [];
  let current: { path: string; lines: string[] } | undefined;
  const close = () => {
    if (current === undefined) return;
    const text = current.lines.join('\n').replace(/\n+$/, '');
    if (text !== '')
      files.push({ read: { path: current.path, whole: true, shape: 'plain', firstLine: 1 }, text });
    current = undefined;
  };
  for (const line of result.split('\n')) {
    if (line === manyFilesEnd) break;
    const separator = manyFilesSeparator.exec(line);
    if (separator) {
      close();
      current = { path: separator[1]!, lines: [] };
    } else current?.lines.push(line);
  }
  close();
  return files;
}
