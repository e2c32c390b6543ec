import type { ToolUseBlock } from '../model/messages.js';
import { codexExecCalls } from './codex-exec-call.js';
import { inPlaceEdits } from './in-place-edits.js';
import type { FileMove, TaskOperation } from './ledger-state.js';
import { removedFiles } from './removed-files.js';
import { taskOperation } from './task-list.js';

/** What a tool call did, as far as the ledger cares; recognised from common tool names and shapes. */
export type ToolCallFact =
  | { kind: 'read'; paths: string[] }
  | { kind: 'change'; paths: string[]; action: string; moves?: FileMove[]; removes?: string[] }
  | { kind: 'command'; command: string; moves?: FileMove[]; edits?: string[]; removes?: string[] }
  | { kind: 'plan'; items: string[] }
  | { kind: 'task'; operation: TaskOperation }
  | { kind: 'other' };

const readTools = new Set([
  'read',
  'read_file',
  'readfile',
  'view',
  'view_file',
  'cat',
  'open_file',
  'notebookread',
]);
const changeTools = new Map([
  ['edit', 'edit'],
  ['multiedit', 'edit'],
  ['edit_file', 'edit'],
  ['replace', 'edit'],
  ['notebookedit', 'edit'],
  ['write', 'write'],
  ['write_file', 'write'],
  ['create_file', 'write'],
  ['delete_file', 'delete'],
]);
const commandTools = new Set([
  'bash',
  'shell',
  'exec_command',
  'run_shell_command',
  'execute_command',
  'run_command',
  'terminal',
  'local_shell',
  'container.exec',
]);
// Claude Code and Anthropic's text editor tool use `command` to say what a call did.
const editorTools = new Set(['str_replace_editor', 'str_replace_based_edit_tool', 'text_editor']);
const planTools = new Set(['todowrite', 'update_plan', 'write_todos', 'todo_write']);
// `filePath`: opencode's read, edit and write.
const pathArguments = ['file_path', 'filePath', 'path', 'filename', 'file', 'target_file', 'notebook_path'];
const patchFileLine = /^\*\*\* (Add|Update|Delete) File: (.+)$/gm;
/** A patch's file header and, on the next line, where it moves to. */
const patchMoveLines = /^\*\*\* Update File: (.+)\n\*\*\* Move to: (.+)$/gm;
/**
 * A shell command that is one `mv` or `git mv` of one file, flags aside: no other command, no
 * variable, glob or redirection (those could move anything).
 */
const moveCommand = /^(?:git\s+)?mv\s+(?:-[A-Za-z]+\s+)*([^\s;&|<>$`*?'"()]+)\s+([^\s;&|<>$`*?'"()]+)$/;

/** What `toolUse` did: a read, a change, a shell command, a new plan, or something else. */
export function toolCallFact(toolUse: ToolUseBlock): ToolCallFact {
  const name = String(toolUse.name).toLowerCase();
  const input = (typeof toolUse.input === 'object' && toolUse.input !== null ? toolUse.input : {}) as Record<
    string,
    unknown
  >;
  const nested = codexExecCalls(toolUse);
  if (nested) return execFact(nested);
  if (planTools.has(name))
    return { kind: 'plan', items: planItems(input.todos ?? input.plan ?? input.items) };
  const task = taskOperation(name, input);
  if (task) return { kind: 'task', operation: task };
  if (name === 'apply_patch') return patchFact(input, toolUse.input);
  const path = firstPath(input);
  if (editorTools.has(name) && path) {
    return input.command === 'view' ? { kind: 'read', paths: [path] } : changeOf(String(input.command), path);
  }
  if (readTools.has(name) && path) return { kind: 'read', paths: [path] };
  const action = changeTools.get(name);
  if (action && path)
    return action === 'delete'
      ? { kind: 'change', paths: [path], action, removes: [path] }
      : { kind: 'change', paths: [path], action };
  if (commandTools.has(name)) {
    const command = commandText(input.command ?? input.cmd ?? input.commands);
    if (command) return commandFact(command);
  }
  return { kind: 'other' };
}

/** A shell command, with the files it renames (`mv`), edits in place (`sed -i`) and removes (`rm`). */
function commandFact(command: string): ToolCallFact {
  const move = shellMove(command);
  const edits = inPlaceEdits(command);
  const removes = removedFiles(command);
  return {
    kind: 'command',
    command,
    ...(move ? { moves: [move] } : {}),
    ...(edits.length > 0 ? { edits } : {}),
    ...(removes.length > 0 ? { removes } : {}),
  };
}

/** A Codex `exec` call by what it calls: one nested call's fact, or its shell commands together. */
function execFact(nested: readonly ToolUseBlock[]): ToolCallFact {
  if (nested.length === 1) return toolCallFact(nested[0]!);
  const commands = nested.flatMap((call) => {
    const fact = call.name === 'exec_command' ? toolCallFact(call) : undefined;
    return fact?.kind === 'command' ? [fact.command] : [];
  });
  return commands.length > 0 && commands.length === nested.length
    ? commandFact(commands.join('\n'))
    : { kind: 'other' };
}

function changeOf(command: string, path: string): ToolCallFact {
  return { kind: 'change', paths: [path], action: command === 'create' ? 'write' : 'edit' };
}

function firstPath(input: Record<string, unknown>): string | undefined {
  for (const name of pathArguments) {
    const value = input[name];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** A shell command as one string: a `["bash", "-lc", "…"]` array is its script. */
function commandText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (!Array.isArray(value) || !value.every((part) => typeof part === 'string')) return undefined;
  const shellScript = value.length >= 3 && /^(ba|z)?sh$/.test(String(value[0]).split('/').pop() ?? '');
  return (shellScript ? String(value[value.length - 1]) : value.join(' ')).trim() || undefined;
}

/** The files an `apply_patch` touches (its patch text in `input`, `patch` or the raw input). */
function patchFact(input: Record<string, unknown>, raw: unknown): ToolCallFact {
  // Codex: the call's input itself (freeform) or `input`; opencode: `patchText`.
  const text = [input.input, input.patch, input.patchText, raw].find((value) => typeof value === 'string') as
    | string
    | undefined;
  const paths: string[] = [];
  // A file the patch deletes and adds again (a rewrite whole: `Delete File` then `Add File`) is there after it.
  const lastAction = new Map<string, string>();
  for (const match of (text ?? '').matchAll(patchFileLine)) {
    paths.push(match[2]!.trim());
    lastAction.set(match[2]!.trim(), match[1]!);
  }
  const removes = [...lastAction].flatMap(([path, action]) => (action === 'Delete' ? [path] : []));
  const moves: FileMove[] = [];
  for (const match of (text ?? '').replaceAll('\r\n', '\n').matchAll(patchMoveLines)) {
    const [from, to] = [match[1]!.trim(), match[2]!.trim()];
    if (from !== to) moves.push({ from, to });
  }
  if (paths.length === 0) return { kind: 'other' };
  return {
    kind: 'change',
    paths,
    action: 'patch',
    ...(moves.length > 0 ? { moves } : {}),
    ...(removes.length > 0 ? { removes } : {}),
  };
}

/**
 * The file a one-file `mv a.ts b.ts` (or `git mv`) renames. A destination ending in `/` is a
 * folder; one whose last part has no dot may be a folder too, unknown from the command alone: no move.
 */
function shellMove(command: string): FileMove | undefined {
  const match = moveCommand.exec(command.trim());
  if (!match) return undefined;
  const [from, target] = [match[1]!, match[2]!];
  const name = from.slice(from.lastIndexOf('/') + 1);
  if (target.endsWith('/')) return { from, to: `${target}${name}` };
  return target.slice(target.lastIndexOf('/') + 1).includes('.') ? { from, to: target } : undefined;
}

/** The plan's items verbatim: `[status] text` (Claude Code `content`, Codex `step`). */
function planItems(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    if (typeof item === 'string') return [item];
    if (typeof item !== 'object' || item === null) return [];
    const record = item as Record<string, unknown>;
    const text = [record.content, record.step, record.description, record.title, record.text].find(
      (field) => typeof field === 'string',
    );
    if (typeof text !== 'string') return [];
    return [typeof record.status === 'string' ? `[${record.status}] ${text}` : text];
  });
}
