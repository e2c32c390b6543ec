import type { ToolUseBlock } from '../model/messages.js';

/** One replacement a change tool made: the text it replaced (empty for a new file) and the new text. */
export interface TextEdit {
  path: string;
  oldText: string;
  newText: string;
  /** True when `newText` is the whole file (Write, create). */
  whole: boolean;
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

/** What the working set reads from a search call: its pattern. */
export interface SearchCall {
  pattern: string;
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
/** A shell search: `grep`, `rg`, `git grep`, `ag`, first in the command or after a pipe or `&&`. */
const shellSearch =
  /(?:^|[|;&]\s*)(?:rg|grep|egrep|git\s+grep|ag)\s+((?:(?:-[ABCmgte]|--(?:glob|type|max-count|context|include|exclude))[= ]\S+\s+|-{1,2}[\w-]+(?:=\S+)?\s+)*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s|;&]+)/;
/(?:^|[|;&]\s*)(?:rg|grep|egrep|git\s+grep|ag)\s+((?:-{1,2}[\w-]+(?:[= ](?:\d+|'[^']*'|"[^"]*"))?\s+)*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s|;&]+)/;
const hunkFile = /^\*\*\* (Add|Update|Delete) File: (.+)$/;

function inputOf(use: ToolUseBlock): Record<string, unknown> {
  return typeof use.input === 'object' && use.input !== null ? (use.input as Record<string, unknown>) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The replacements a change call asks for (Edit, MultiEdit, Write, the text editor, apply_patch). */
export function editsOf(use: ToolUseBlock, path: string | undefined): TextEdit[] {
  const input = inputOf(use);
  const name = String(use.name).toLowerCase();
  if (name === 'apply_patch')
    return patchEdits(text(input.input) ?? text(input.patch) ?? text(use.input) ?? '');
  if (path === undefined) return [];
  const whole =
    text(input.content) ?? text(input.file_text) ?? (name.startsWith('write') ? text(input.text) : undefined);
  if (whole !== undefined) return [{ path, oldText: '', newText: whole, whole: true }];
  if (Array.isArray(input.edits)) {
    return input.edits.flatMap((edit) => {
      const record = (typeof edit === 'object' && edit !== null ? edit : {}) as Record<string, unknown>;
      const newText = text(record.new_string) ?? text(record.newText);
      return newText === undefined
        ? []
        : [{ path, oldText: text(record.old_string) ?? text(record.oldText) ?? '', newText, whole: false }];
    });
  }
  const newText = text(input.new_string) ?? text(input.new_str) ?? text(input.new_source);
  if (newText === undefined) return [];
  return [{ path, oldText: text(input.old_string) ?? text(input.old_str) ?? '', newText, whole: false }];
}

/** An `apply_patch` as replacements: each hunk's context and removed lines, then its context and added lines. */
function patchEdits(patch: string): TextEdit[] {
  const edits: TextEdit[] = [];
  let path: string | undefined;
  let added = false;
  let oldLines: string[] = [];
  let newLines: string[] = [];
  const flush = () => {
    if (path !== undefined && (oldLines.length > 0 || newLines.length > 0))
      edits.push({ path, oldText: oldLines.join('\n'), newText: newLines.join('\n'), whole: added });
    oldLines = [];
    newLines = [];
  };
  for (const line of patch.split('\n')) {
    const file = hunkFile.exec(line);
    if (file) {
      flush();
      path = file[1] === 'Delete' ? undefined : file[2]!.trim();
      added = file[1] === 'Add';
    } else if (line.startsWith('@@') || line.startsWith('*** ')) flush();
    else if (line.startsWith('+')) newLines.push(line.slice(1));
    else if (line.startsWith('-')) oldLines.push(line.slice(1));
    else if (line.startsWith(' ')) {
      oldLines.push(line.slice(1));
      newLines.push(line.slice(1));
    }
  }
  flush();
  return edits;
}

/** The pattern of a search call (a Grep tool, or a shell command that runs `rg` or `grep`). */
export function searchOf(use: ToolUseBlock, command: string | undefined): SearchCall | undefined {
  const name = String(use.name).toLowerCase();
  if (searchTools.has(name)) {
    const input = inputOf(use);
    const pattern = text(input.pattern) ?? text(input.query) ?? text(input.regex);
    return pattern?.trim() ? { pattern: pattern.trim() } : undefined;
  }
  if (command === undefined) return undefined;
  const match = shellSearch.exec(command);
  if (!match) return undefined;
  const pattern = match[2]!.replace(/^(["'])([\s\S]*)\1$/, '$2');
  return pattern.trim() ? { pattern } : undefined;
}
