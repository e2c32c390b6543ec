import { codexExecCalls } from '../ledger/codex-exec-call.js';
import type { ToolUseBlock } from '../model/messages.js';

/** One replacement a change tool made: the text it replaced (empty for a new file) and the new text. */
export interface TextEdit {
  path: string;
  oldText: string;
  newText: string;
  /** True when `newText` is the whole file (Write, create). */
  whole: boolean;
  /** True when every occurrence of `oldText` was replaced (Claude Code's `replace_all`, opencode's `replaceAll`). */
  replaceAll?: true;
  /**
   * A rename (Codex's `*** Move to:`), after the edits before it: the file at `path` is now at
   * `movedTo`. Its `oldText` and `newText` are empty: it changes no text.
   */
  movedTo?: string;
}

/**
 * `text` with `edit` made (the first place its old text stands, as the edit tools replace it) and
 * where, or undefined when the text does not hold the old text.
 */
export function applyEdit(
  text: string,
  { oldText, newText }: Pick<TextEdit, 'oldText' | 'newText'>,
): { text: string; at: number } | undefined {
  const at = oldText === '' ? -1 : text.indexOf(oldText);
  if (at === -1) return undefined;
  return { text: text.slice(0, at) + newText + text.slice(at + oldText.length), at };
}

/** What the working set reads from a search call: its pattern, and the one file it searched, if so. */
export interface SearchCall {
  pattern: string;
  /** The only operand of a shell search: the file its `N:` lines are in (grep names no file for one). */
  file?: string;
  /**
   * A shell search of what a pipe gives it (`go test ./... | grep FAIL`): its lines are that
   * command's output, and a `x_test.go:12:` in them is no hit of a file it searched.
   */
  piped?: true;
}

const searchTools = new Set([
  'grep',
  'glob',
  'search',
  'search_files',
  'find',
  'codebase_search',
  'grep_search',
]);
/**
 * Options of grep and rg whose value is the next word (`-A 20`, `-g '*.py'`): neither the pattern
 * before it nor an operand after it.
 */
const optionsWithValue = new Set(
  '-A -B -C -m -g -t -e --glob --type --max-count --context --include --exclude'.split(' '),
);
/** A shell search: `grep`, `rg`, `git grep`, `ag`, first in the command or after a pipe or `&&`. */
const shellSearch = new RegExp(
  String.raw`(?:^|[|;&]\s*)(?:rg|grep|egrep|git\s+grep|ag)\s+((?:(?:${[...optionsWithValue].join('|')})[= ]\S+\s+|-{1,2}[\w-]+(?:=\S+)?\s+)*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s|;&]+)`,
);
const hunkFile = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const hunkMove = /^\*\*\* Move to: (.+)$/;

function inputOf(use: ToolUseBlock): Record<string, unknown> {
  return typeof use.input === 'object' && use.input !== null ? (use.input as Record<string, unknown>) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A heredoc's first line: `cat <<'EOF' > path`, `cat > path <<EOF`, `tee path <<-"EOF"`. */
const heredocHead = /^(.*?)<<-?\s*(['"]?)([\w.-]+)\2(.*)$/;
/** Where the head writes: `> path` (not `>>`, an append), or `tee path`. */
const heredocTarget =
  /(?:^|[^>\d&])>\s*(?!>)(['"]?)([^\s'"|;&<>]+)\1|\btee\s+(?:-\S+\s+)*(['"]?)([^\s'"|;&<>]+)\3/;

/**
 * The files a shell command writes whole with a heredoc (how shell-only agents such as
 * mini-swe-agent create a script or a file): each with the text it now holds.
 */
export function heredocWrites(command: string): TextEdit[] {
  const edits: TextEdit[] = [];
  const lines = command.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const head = heredocHead.exec(lines[index]!);
    if (!head || !/\b(?:cat|tee)\b/.test(head[1]!)) continue;
    const end = lines.findIndex((line, at) => at > index && line.replace(/^\t+/, '') === head[3]);
    if (end === -1) break;
    const target = heredocTarget.exec(`${head[1]} ${head[4]}`);
    const path = target?.[2] ?? target?.[4];
    if (path !== undefined && path !== '/dev/null')
      edits.push({ path, oldText: '', newText: lines.slice(index + 1, end).join('\n'), whole: true });
    index = end;
  }
  return edits;
}

/** The replacements a change call asks for (Edit, MultiEdit, Write, the text editor, apply_patch, in a Codex `exec` too). */
export function editsOf(use: ToolUseBlock, path: string | undefined): TextEdit[] {
  const nested = codexExecCalls(use);
  if (nested) return nested.flatMap((call) => (call.name === 'apply_patch' ? editsOf(call, path) : []));
  const input = inputOf(use);
  const name = String(use.name).toLowerCase();
  if (name === 'apply_patch')
    return patchEdits(
      text(input.input) ?? text(input.patch) ?? text(input.patchText) ?? text(use.input) ?? '',
    );
  if (path === undefined) return [];
  const whole =
    text(input.content) ?? text(input.file_text) ?? (name.startsWith('write') ? text(input.text) : undefined);
  if (whole !== undefined) return [{ path, oldText: '', newText: whole, whole: true }];
  if (Array.isArray(input.edits)) {
    return input.edits.flatMap((edit) => {
      const record = (typeof edit === 'object' && edit !== null ? edit : {}) as Record<string, unknown>;
      const newText = text(record.new_string) ?? text(record.newString) ?? text(record.newText);
      const oldText = text(record.old_string) ?? text(record.oldString) ?? text(record.oldText) ?? '';
      return newText === undefined ? [] : [{ path, oldText, newText, whole: false }];
    });
  }
  // Claude Code and Gemini CLI: `new_string`; the text editor: `new_str`; opencode: `newString`.
  const newText =
    text(input.new_string) ?? text(input.new_str) ?? text(input.newString) ?? text(input.new_source);
  if (newText === undefined) return [];
  const oldText = text(input.old_string) ?? text(input.old_str) ?? text(input.oldString) ?? '';
  const replaceAll = input.replace_all === true || input.replaceAll === true;
  return [{ path, oldText, newText, whole: false, ...(replaceAll ? { replaceAll } : {}) }];
}

/**
 * An `apply_patch` as replacements: each hunk's context and removed lines, then its context and
 * added lines. A hunk of context lines alone (`@@\n func f() {\n@@`, which only moves the patch's
 * place in the file) changes nothing: it is no edit, or the function it names reads as changed.
 */
function patchEdits(patch: string): TextEdit[] {
  const edits: TextEdit[] = [];
  let path: string | undefined;
  let added = false;
  let movedTo: string | undefined;
  let oldLines: string[] = [];
  let newLines: string[] = [];
  let changes = false;
  const flush = () => {
    if (path !== undefined && changes)
      edits.push({ path, oldText: oldLines.join('\n'), newText: newLines.join('\n'), whole: added });
    oldLines = [];
    newLines = [];
    changes = false;
  };
  // The file's hunks apply to its text under its old name; then it has the new one.
  const closeFile = () => {
    flush();
    if (path !== undefined && movedTo !== undefined && movedTo !== path)
      edits.push({ path, oldText: '', newText: '', whole: false, movedTo });
    movedTo = undefined;
  };
  for (const line of patch.split('\n')) {
    const file = hunkFile.exec(line);
    const move = file ? undefined : hunkMove.exec(line);
    if (file) {
      closeFile();
      path = file[1] === 'Delete' ? undefined : file[2]!.trim();
      added = file[1] === 'Add';
    } else if (move) {
      flush();
      movedTo = move[1]!.trim();
    } else if (line.startsWith('*** End Patch')) closeFile();
    else if (line.startsWith('@@') || line.startsWith('*** ')) flush();
    else if (line.startsWith('+')) {
      newLines.push(line.slice(1));
      changes = true;
    } else if (line.startsWith('-')) {
      oldLines.push(line.slice(1));
      changes = true;
    } else if (line.startsWith(' ')) {
      oldLines.push(line.slice(1));
      newLines.push(line.slice(1));
    }
  }
  closeFile();
  return edits;
}

/** The pattern of a search call (a Grep tool, or a shell command that runs `rg` or `grep`). */
export function searchOf(use: ToolUseBlock, command: string | undefined): SearchCall | undefined {
  const name = String(use.name).toLowerCase();
  if (searchTools.has(name)) {
    const input = inputOf(use);
    const pattern = text(input.pattern) ?? text(input.query) ?? text(input.regex);
    if (!pattern?.trim()) return undefined;
    const file = text(input.path)?.trim();
    return file ? { pattern: pattern.trim(), file } : { pattern: pattern.trim() };
  }
  if (command === undefined) return undefined;
  const match = shellSearch.exec(command);
  if (!match) return undefined;
  const pattern = match[2]!.replace(/^(["'])([\s\S]*)\1$/, '$2');
  if (!pattern.trim()) return undefined;
  const file = onlyOperand(command.slice(match.index + match[0].length));
  if (file !== undefined) return { pattern, file };
  // `grep -r` and `git grep` search files, whatever is piped to them.
  const files = /(?:^|\s)-(?:\w*[rR]\w*|-recursive)\b/.test(match[1] ?? '') || /git\s+grep/.test(match[0]);
  return match[0].startsWith('|') && !files ? { pattern, piped: true } : { pattern };
}

/** The one operand after a shell search's pattern, up to the next pipe, list or redirect. */
function onlyOperand(rest: string): string | undefined {
  const words = (rest.replace(/\s\d?>{1,2}&?\s*\S+/g, ' ').split(/[|;&<>\n]/, 1)[0] ?? '')
    .trim()
    .split(/\s+/);
  const operands = words.filter(
    (word, index) => word !== '' && !word.startsWith('-') && !optionsWithValue.has(words[index - 1] ?? ''),
  );
  return operands.length === 1 && !/[*?]/.test(operands[0]!)
    ? operands[0]!.replace(/^(["'])(.*)\1$/, '$2')
    : undefined;
}
