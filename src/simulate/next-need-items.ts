/**
 * What one tool call uses, for the next-need probe (`next-need.ts`): the same rules for every
 * format and every strategy, written down in docs/simulate.md "Next need".
 *
 * - `files`: the basename of a file tool's path (`Read`, `Edit`, `Write`, `MultiEdit`,
 *   `NotebookEdit`, `read_file`, `view`, `edit_file`, `write_file`, Gemini CLI's `replace`,
 *   opencode's `read`, `edit`, `write`, `multiedit`: `file_path`, `path`, `notebook_path`,
 *   `filePath`), of each file a Codex `apply_patch` adds, updates or deletes, and of
 *   each word of a shell command that names a file with a known extension ({@link fileExtensions});
 * - `identifiers`: the code-shaped words ({@link isCodeShaped}) of an edit's old and new text (Claude
 *   Code `Edit` / `MultiEdit` `old_string` and `new_string`, the hunk lines of an `apply_patch`), of
 *   a search pattern (`Grep` `pattern`, the pattern of a `grep` / `rg` / `git grep` in a shell
 *   command; a pattern that is one bare word counts whatever its shape) and of a shell command;
 * - `edit-texts`: the first line holding a letter or digit of each `old_string` or `oldString`
 *   (the edit tools above), and of each `apply_patch` hunk the first such context or removed line,
 *   whitespace collapsed;
 * - `commands`: the command of any call whose input has `command` or `cmd` (Claude Code `Bash`,
 *   Codex `exec_command` / `shell`, mini-swe-agent's and SWE-agent's actions): its first non-empty
 *   line, whitespace collapsed, whole.
 *
 * A Codex `exec` call (JavaScript calling `tools.exec_command` and `tools.apply_patch`) uses what the
 * calls in it whose argument is a literal use.
 */
import type { ToolUseBlock } from 'agent-compact';
import { codexExecCalls } from 'agent-compact/internal';
import { collapseWhitespace } from './key-facts.js';
import { basename, firstString, inputObject } from './tool-input.js';

/** The kinds of item, in report order. */
export const nextNeedKinds = ['files', 'identifiers', 'edit-texts', 'commands'] as const;

/** A kind of item the agent uses. */
export type NextNeedKind = (typeof nextNeedKinds)[number];

/** What one call uses, per kind (each list without repeats). */
export type NeedItems = Record<NextNeedKind, string[]>;

const fileTools = new Set([
  'Read',
  'Edit',
  'Write',
  'MultiEdit',
  'NotebookEdit',
  'read_file',
  'view',
  'edit_file',
  'write_file',
  // Gemini CLI's edit; opencode's file tools.
  'replace',
  'read',
  'edit',
  'write',
  'multiedit',
]);
/** The tools whose input is a replacement (`old_string` or `oldString`), or a list of them in `edits`. */
const editTools = new Set(['Edit', 'MultiEdit', 'edit_file', 'replace', 'edit', 'multiedit']);
const pathKeys = ['file_path', 'path', 'notebook_path', 'filePath'];
const searchTools = new Set(['Grep', 'grep', 'search', 'grep_search']);
const searchCommands = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag']);
/** grep / rg options whose value is the next word (the value is not the pattern). */
const optionsWithValue = new Set(['-A', '-B', '-C', '-m', '-g', '-t', '--glob', '--type', '--max-count']);

/** Extensions that make a shell word a file name: source, config and data files agents work on. */
export const fileExtensions = new Set(
  'py ts tsx js jsx mjs cjs go rs java kt c h cc cpp hpp rb php cs swift scala md json jsonl yaml yml toml txt cfg ini sh html css scss sql xml lock mod sum rst proto traj csv lua vue svelte'.split(
    ' ',
  ),
);

/** Words a call is made of in code; `(` after them does not make them an identifier. */
const keywords = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'return',
  'function',
  'typeof',
  'sizeof',
  'elif',
  'and',
  'not',
]);

/** Identifiers are at least this long: shorter words name nothing the agent would look for. */
export const MIN_IDENTIFIER_LENGTH = 3;

const wordPattern = /[A-Za-z_$][\w$]*/g;
const patchFilePattern = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm;

/**
 * True for a word that reads as code, not prose: it has an inner `_` (`snake_case`,
 * `MAX_TOKENS`), or a capital after its first letter and a lowercase letter (`camelCase`,
 * `CalculateTokenUsage`, `HTTPServer`), or `(` follows it in the text (`compute(`).
 */
export function isCodeShaped(word: string, followedByParen = false): boolean {
  if (word.length < MIN_IDENTIFIER_LENGTH) return false;
  if (/[A-Za-z0-9]_[A-Za-z0-9]/.test(word)) return true;
  if (/[a-z]/.test(word) && /[A-Z]/.test(word.slice(1))) return true;
  return followedByParen && !keywords.has(word);
}

/** The code-shaped words of a text, in order, without repeats. */
export function codeIdentifiers(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(wordPattern)) {
    const end = match.index + match[0].length;
    if (isCodeShaped(match[0], text[end] === '(')) found.add(match[0]);
  }
  return [...found];
}

/** A search pattern's identifiers: the bare word it is, else its code-shaped words. */
export function patternIdentifiers(pattern: string): string[] {
  const plain = pattern.replace(/\\[bBwWsSdD<>]/g, ' ').replace(/\\(.)/g, '$1');
  const bare = /^\s*([A-Za-z_$][\w$]*)\s*$/.exec(plain);
  if (bare && bare[1]!.length >= MIN_IDENTIFIER_LENGTH) return [bare[1]!];
  return codeIdentifiers(plain);
}

/** Splits a shell line into words, honouring single and double quotes (enough to find arguments). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s"']+)/g)) {
    words.push(match[1] ?? match[2] ?? match[3] ?? '');
  }
  return words;
}

/** The patterns of the grep / rg / git grep calls of a shell command. */
export function grepPatterns(command: string): string[] {
  const patterns: string[] = [];
  for (const segment of command.split(/\||&&|;|\n/)) {
    const words = shellWords(segment.trim());
    let at = words.findIndex((word) => searchCommands.has(word.split('/').pop() ?? ''));
    if (at === -1) continue;
    for (at++; at < words.length; at++) {
      const word = words[at]!;
      if (word === '-e' || word === '--regexp') {
        if (words[at + 1] !== undefined) patterns.push(words[at + 1]!);
        break;
      }
      if (optionsWithValue.has(word)) at++;
      else if (!word.startsWith('-')) {
        patterns.push(word);
        break;
      }
    }
  }
  return patterns;
}

/** The file names the words of a shell command name (see {@link fileExtensions}). */
export function commandFiles(command: string): string[] {
  const found = new Set<string>();
  const words = command.split(/[\s"'`=;,()<>|&]+/).filter((word) => !word.includes('://'));
  // `tests/test_x.py::test_y` names tests/test_x.py.
  for (const word of words.flatMap((part) => part.split(':'))) {
    const path = word.replace(/[.]+$/, '');
    const extension = /\.([A-Za-z][A-Za-z0-9]*)$/.exec(path)?.[1];
    if (extension === undefined || !fileExtensions.has(extension) || !/^[\w./@+-]+$/.test(path)) continue;
    const name = basename(path);
    if (name.length > extension.length + 1) found.add(name);
  }
  return [...found];
}

/** The whole command of a call's input (`command` or `cmd`), or undefined. */
export function commandText(input: Record<string, unknown>): string | undefined {
  const command = input.command ?? input.cmd;
  if (typeof command === 'string') return command;
  if (Array.isArray(command) && command.every((part) => typeof part === 'string')) {
    // Codex `shell` calls wrap the command as ["bash", "-lc", "…"]: the script is the command.
    return command.length === 3 && command[1] === '-lc' ? command[2] : command.join(' ');
  }
  return undefined;
}

/** First non-empty line, whitespace collapsed. */
export function commandLine(command: string): string {
  return collapseWhitespace(command.split('\n').find((line) => line.trim() !== '') ?? '');
}

/** The first line of a text that holds a letter or digit, whitespace collapsed; '' when none. */
export function firstMeaningfulLine(text: string): string {
  return collapseWhitespace(text.split('\n').find((line) => /[\p{L}\p{N}]/u.test(line)) ?? '');
}

/** What one tool call uses (see the module comment); a Codex `exec` call, what the calls in it use. */
export function toolCallNeeds(block: ToolUseBlock): NeedItems {
  const nested = codexExecCalls(block);
  if (nested) return mergedNeeds(nested.map(callNeeds));
  return callNeeds(block);
}

function mergedNeeds(needs: readonly NeedItems[]): NeedItems {
  const merged = Object.fromEntries(
    nextNeedKinds.map((kind) => [kind, [...new Set(needs.flatMap((need) => need[kind]))]]),
  );
  return merged as NeedItems;
}

function callNeeds(block: ToolUseBlock): NeedItems {
  const items = { files: new Set<string>(), identifiers: new Set<string>(), edits: new Set<string>() };
  const name = String(block.name ?? '');
  const input = inputObject(block.input);
  const path = firstString(input, pathKeys);
  if (fileTools.has(name) && path !== undefined) items.files.add(basename(path));
  for (const edit of editsOf(name, input)) {
    for (const identifier of [...codeIdentifiers(edit.old), ...codeIdentifiers(edit.new)])
      items.identifiers.add(identifier);
    const line = firstMeaningfulLine(edit.old);
    if (line !== '') items.edits.add(line);
  }
  if (name === 'apply_patch') patchNeeds(patchText(block.input, input), items);
  const pattern = typeof input.pattern === 'string' ? input.pattern : undefined;
  if (searchTools.has(name) && pattern !== undefined)
    for (const identifier of patternIdentifiers(pattern)) items.identifiers.add(identifier);
  const command = name === 'apply_patch' ? undefined : commandText(input);
  const commands: string[] = [];
  if (command !== undefined && commandLine(command) !== '') {
    commands.push(commandLine(command));
    for (const file of commandFiles(command)) items.files.add(file);
    for (const grep of grepPatterns(command))
      for (const identifier of patternIdentifiers(grep)) items.identifiers.add(identifier);
    for (const identifier of codeIdentifiers(command)) items.identifiers.add(identifier);
  }
  return {
    files: [...items.files].filter((file) => file !== ''),
    identifiers: [...items.identifiers],
    'edit-texts': [...items.edits],
    commands,
  };
}

/** The old and new text of each replacement an `Edit` or `MultiEdit` call makes. */
function editsOf(name: string, input: Record<string, unknown>): { old: string; new: string }[] {
  if (!editTools.has(name)) return [];
  const edits = Array.isArray(input.edits) ? input.edits : [input];
  return edits.flatMap((edit) => {
    const record = inputObject(edit);
    const old = firstString(record, ['old_string', 'oldString']);
    return old === undefined ? [] : [{ old, new: firstString(record, ['new_string', 'newString']) ?? '' }];
  });
}

function patchText(raw: unknown, input: Record<string, unknown>): string {
  if (typeof raw === 'string') return raw;
  return firstString(input, ['input', 'patch', 'patchText']) ?? '';
}

/** A patch's files, the identifiers of its hunk lines and each hunk's first context or removed line. */
function patchNeeds(
  patch: string,
  items: { files: Set<string>; identifiers: Set<string>; edits: Set<string> },
): void {
  for (const match of patch.matchAll(patchFilePattern)) items.files.add(basename(match[1]!));
  let hunkOpen = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('***')) {
      // An update's first hunk may come without an `@@` line.
      hunkOpen = line.startsWith('*** Update File:');
      continue;
    }
    if (line.startsWith('@@')) {
      hunkOpen = true;
      for (const identifier of codeIdentifiers(line.slice(2))) items.identifiers.add(identifier);
      continue;
    }
    const prefix = line[0];
    if (prefix !== ' ' && prefix !== '-' && prefix !== '+') continue;
    for (const identifier of codeIdentifiers(line.slice(1))) items.identifiers.add(identifier);
    if (hunkOpen && prefix !== '+' && /[\p{L}\p{N}]/u.test(line)) {
      items.edits.add(collapseWhitespace(line.slice(1)));
      hunkOpen = false;
    }
  }
}
