/**
 * Survival probes: of the facts a history holds, how many a request made after compacting it still
 * shows as text. The same rules for every strategy and for the agents' own compactions (written
 * down in docs/simulate.md):
 *
 * - `files-edited`: basenames of the paths of `Edit`, `Write`, `MultiEdit` (and `NotebookEdit`,
 *   `write_file`, `edit_file`, Gemini CLI's `replace`, opencode's `edit`, `write`, `multiedit`)
 *   calls, and of the files a Codex `apply_patch` adds, updates or deletes;
 * - `files-read`: basenames of the paths of `Read` (and `read_file`, `view`, opencode's `read`) calls;
 * - `commands`: the command of `Bash`, `exec_command`, `shell` and `run_shell_command` calls: its
 *   first line that runs (after the blank and `#` comment lines opening it, with the lines a
 *   trailing `\` continues it on), whitespace collapsed, first {@link commandFactLength} characters;
 *
 * (a Codex `exec` call counts as the calls in its script whose argument is a literal);
 * - `exit-codes`: each non-zero exit code a tool result states (see `key-facts.ts` for the notations);
 * - `errors`: the first line of each `is_error` result, else the first error line of each result
 *   with a non-zero exit code (`firstErrorLine`), first {@link errorFactLength} characters;
 * - `todo`: the items of the latest todo or plan list (Claude Code `TodoWrite` `todos[].content`,
 *   or the subjects of the tasks its `TaskCreate` calls made and `TaskUpdate` did not delete, until a
 *   `TaskList` result shows the list as it stands, `No tasks found` when every task is done; Codex
 *   `update_plan` `plan[].step`, `write_todos` `todos[]`), first {@link todoFactLength} characters;
 * - `user-messages`: each message the user typed (user text that is not a tool result, a
 *   `<system-reminder>` or other harness markup, judged per text block): visible when {@link MOST_WORDS} of its distinct
 *   words of three letters or more appear in the request;
 * - `task`: the first of those messages, by the same rule.
 *
 * Each fact is counted once per kind (the same command run twice is one fact). Text facts are
 * visible when they are a substring of the request's text (escape codes removed, whitespace
 * collapsed; see `requestText`).
 */

import type { Message, SystemPrompt, ToolResultBlock, ToolUseBlock } from 'agent-compact';
import { codexExecCalls, firstCommandLine } from 'agent-compact/internal';
import { contentBlocks } from 'agent-compact/wire';
import {
  collapseWhitespace,
  errorFactLength,
  exitCodeOf,
  firstErrorLine,
  isFactVisible,
  requestText,
  toolResultText,
} from './key-facts.js';
import { basename, firstString, inputObject } from './tool-input.js';

/** Commands are cut to this many characters (issue #18: "first line, first 60 characters"). */
export const commandFactLength = 60;
/** Todo items are cut to this many characters: the head names the item. */
export const todoFactLength = 60;
/** A user message is visible when this share of its distinct words is in the request. */
export const MOST_WORDS = 0.8;

/** The kinds of fact, in report order. */
export const survivalKinds = [
  'files-edited',
  'files-read',
  'commands',
  'exit-codes',
  'errors',
  'todo',
  'user-messages',
  'task',
] as const;

/** A kind of fact. */
export type SurvivalKind = (typeof survivalKinds)[number];

/** How many facts of one kind the history held and the request still shows. */
export interface SurvivalCount {
  visible: number;
  total: number;
}

/** Survival per kind. */
export type Survival = Record<SurvivalKind, SurvivalCount>;

/** A request as far as survival needs it. */
export interface SurvivalRequest {
  system?: SystemPrompt | undefined;
  messages: readonly Message[];
}

// Gemini CLI's `replace` and `run_shell_command`; opencode's lower-case file tools.
const editTools = new Set([
  'Edit',
  'Write',
  'MultiEdit',
  'NotebookEdit',
  'write_file',
  'edit_file',
  'replace',
  'edit',
  'write',
  'multiedit',
]);
const readTools = new Set(['Read', 'read_file', 'view', 'read']);
const commandTools = new Set(['Bash', 'bash', 'exec_command', 'shell', 'local_shell', 'run_shell_command']);
const patchFilePattern = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm;
/** Plain-text harness notes in the user's turn (Claude Code, Codex): not typed. */
const harnessPrefixes = ['Caveat:', '# AGENTS.md instructions for', 'Approved command prefix saved:'];
/**
 * The tags Claude Code and Codex put around what they write in the user's turn. Another opening
 * tag is the user's (mini-swe-agent's task opens with `<pr_description>`).
 */
const harnessTag =
  /^<(?:system-reminder|command-[a-z]+|local-command-[a-z]+|bash-[a-z]+|task-notification|user-prompt-submit-hook|ide_[a-z_]+|environment_context|user_instructions|collaboration_mode|permissions|skills_instructions|subagent_notification|turn_aborted|user_shell_command)[\s>/]/;
const wordPattern = /[\p{L}\p{N}_]{3,}/gu;

/** No facts yet: the start of a sum. */
export function emptySurvival(): Survival {
  const survival = {} as Survival;
  for (const kind of survivalKinds) survival[kind] = { visible: 0, total: 0 };
  return survival;
}

/** Adds one survival count into a running total. */
export function addSurvival(total: Survival, survival: Survival): void {
  for (const kind of survivalKinds) {
    total[kind].visible += survival[kind].visible;
    total[kind].total += survival[kind].total;
  }
}

/** The facts of a history, per kind (see the module comment). */
export interface HistoryFacts {
  text: Record<Exclude<SurvivalKind, 'exit-codes' | 'user-messages' | 'task'>, Set<string>>;
  exitCodes: Set<string>;
  userMessages: string[];
}

/**
 * Measures what of `history` the `request` still shows, per kind.
 *
 * @example
 * const survival = measureSurvival(historyBefore, { system, messages: compacted });
 * console.log(survival.commands.visible / survival.commands.total);
 */
export function measureSurvival(history: readonly Message[], request: SurvivalRequest): Survival {
  const facts = historyFacts(history);
  const text = requestText(request.system, request.messages);
  const words = new Set((text.toLowerCase().match(wordPattern) ?? []) as string[]);
  const survival = emptySurvival();
  for (const kind of ['files-edited', 'files-read', 'commands', 'errors', 'todo'] as const) {
    for (const fact of facts.text[kind]) {
      survival[kind].total++;
      if (text.includes(fact)) survival[kind].visible++;
    }
  }
  for (const code of facts.exitCodes) {
    survival['exit-codes'].total++;
    if (isFactVisible({ kind: 'exit-code', text: code }, text)) survival['exit-codes'].visible++;
  }
  facts.userMessages.forEach((message, index) => {
    const visible = mostWordsVisible(message, words) ? 1 : 0;
    survival['user-messages'].total++;
    survival['user-messages'].visible += visible;
    if (index === 0) survival.task = { visible, total: 1 };
  });
  return survival;
}

/** The facts of a history (see the module comment). */
export function historyFacts(history: readonly Message[]): HistoryFacts {
  const facts: HistoryFacts = {
    text: {
      'files-edited': new Set(),
      'files-read': new Set(),
      commands: new Set(),
      errors: new Set(),
      todo: new Set(),
    },
    exitCodes: new Set(),
    userMessages: [],
  };
  let latestTodos: string[] | undefined;
  const tasks: TaskList = { next: 1, subjects: new Map(), listCalls: new Set() };
  for (const message of history) {
    if (message.role === 'user') {
      const typed = typedText(message);
      if (typed !== undefined) facts.userMessages.push(typed);
    }
    for (const block of contentBlocks(message)) {
      if (block.type === 'tool_use')
        latestTodos = toolUseFacts(block as ToolUseBlock, facts, tasks) ?? latestTodos;
      else if (block.type === 'tool_result') {
        toolResultFacts(block as ToolResultBlock, facts);
        latestTodos = listedTasks(block as ToolResultBlock, tasks) ?? latestTodos;
      }
    }
  }
  for (const item of latestTodos ?? []) facts.text.todo.add(item);
  return facts;
}

/** Records a call's files and command; returns its todo list when it writes one. */
function toolUseFacts(block: ToolUseBlock, facts: HistoryFacts, tasks: TaskList): string[] | undefined {
  // A Codex `exec` call: the facts of the calls in its script.
  const nested = codexExecCalls(block);
  if (nested) {
    for (const call of nested) toolUseFacts(call, facts, tasks);
    return undefined;
  }
  const name = String(block.name ?? '');
  const input = inputObject(block.input);
  const path = firstString(input, ['file_path', 'path', 'notebook_path', 'filePath']);
  if (editTools.has(name) && path !== undefined) facts.text['files-edited'].add(basename(path));
  if (readTools.has(name) && path !== undefined) facts.text['files-read'].add(basename(path));
  if (name === 'apply_patch') {
    const patch =
      typeof block.input === 'string'
        ? block.input
        : (firstString(input, ['input', 'patch', 'patchText']) ?? '');
    for (const match of patch.matchAll(patchFilePattern)) facts.text['files-edited'].add(basename(match[1]!));
  }
  if (commandTools.has(name)) {
    const command = commandOf(input);
    if (command !== undefined) facts.text.commands.add(cutLine(firstCommandLine(command), commandFactLength));
  }
  return todoItems(name, input) ?? taskItems(block, input, tasks);
}

/** Claude Code's task list (TaskCreate numbers its tasks 1, 2, … in the order they are made). */
interface TaskList {
  next: number;
  subjects: Map<string, string>;
  /** Ids of TaskList calls whose result is still to come. */
  listCalls: Set<string>;
}

/** A TaskList result's line: `#3 [in_progress] Write the parser`. */
const listedTask = /^#(\S+) \[[^\]]+\] (.*)$/;

/**
 * The task list a TaskList result shows, which is the list in force (Claude Code clears it once
 * every task is done: `No tasks found`); undefined for other results.
 */
function listedTasks(block: ToolResultBlock, tasks: TaskList): string[] | undefined {
  if (!tasks.listCalls.delete(String(block.tool_use_id))) return undefined;
  const text = toolResultText(block);
  const listed = text.split('\n').flatMap((line) => {
    const match = listedTask.exec(line.trim());
    return match ? [[match[1]!, match[2]!] as const] : [];
  });
  if (listed.length === 0 && text.trim() !== 'No tasks found') return undefined;
  tasks.subjects = new Map(listed);
  return currentTasks(tasks);
}

/** The task list after a TaskCreate or TaskUpdate call, or undefined for other tools. */
function taskItems(
  block: ToolUseBlock,
  input: Record<string, unknown>,
  tasks: TaskList,
): string[] | undefined {
  const name = String(block.name ?? '');
  if (name === 'TaskCreate' && typeof input.subject === 'string') {
    tasks.subjects.set(String(tasks.next++), input.subject);
  } else if (name === 'TaskUpdate' && input.taskId !== undefined) {
    const id = String(input.taskId);
    if (!tasks.subjects.has(id)) return undefined;
    if (input.status === 'deleted') tasks.subjects.delete(id);
    else if (typeof input.subject === 'string') tasks.subjects.set(id, input.subject);
  } else {
    if (name === 'TaskList') tasks.listCalls.add(String(block.id));
    return undefined;
  }
  return currentTasks(tasks);
}

function currentTasks(tasks: TaskList): string[] {
  return [...tasks.subjects.values()]
    .filter((subject) => collapseWhitespace(subject) !== '')
    .map((subject) => cutLine(subject, todoFactLength));
}

function toolResultFacts(block: ToolResultBlock, facts: HistoryFacts): void {
  const text = toolResultText(block);
  const exitCode = exitCodeOf(text);
  if (exitCode !== undefined) facts.exitCodes.add(String(exitCode));
  let errorLine: string | undefined;
  if (block.is_error === true)
    errorLine = cutLine(text.split('\n').find((line) => line.trim() !== '') ?? '', errorFactLength);
  else if (exitCode !== undefined) errorLine = firstErrorLine(text);
  if (errorLine !== undefined && errorLine !== '') facts.text.errors.add(errorLine);
}

function todoItems(name: string, input: Record<string, unknown>): string[] | undefined {
  const list =
    name === 'update_plan'
      ? input.plan
      : name === 'TodoWrite' || name === 'write_todos'
        ? input.todos
        : undefined;
  if (!Array.isArray(list)) return undefined;
  const items: string[] = [];
  for (const item of list) {
    const text =
      typeof item === 'string'
        ? item
        : firstString(inputObject(item), ['content', 'step', 'description', 'title']);
    if (text !== undefined && collapseWhitespace(text) !== '') items.push(cutLine(text, todoFactLength));
  }
  return items;
}

/**
 * The text the user typed in a message, or undefined when it holds none (tool results, markup).
 * Each text block is judged on its own: a harness block beside typed text (Codex's
 * `<turn_aborted>`, Claude Code's `<ide_opened_file>`) is not typed.
 */
function typedText(message: Message): string | undefined {
  const parts: string[] = [];
  for (const block of contentBlocks(message)) {
    if (block.type !== 'text') continue;
    const text = String(block.text ?? '')
      .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '')
      .trim();
    if (text !== '' && !harnessTag.test(text) && !harnessPrefixes.some((prefix) => text.startsWith(prefix)))
      parts.push(text);
  }
  return parts.length === 0 ? undefined : parts.join('\n');
}

function mostWordsVisible(message: string, words: ReadonlySet<string>): boolean {
  const own = new Set((message.toLowerCase().match(wordPattern) ?? []) as string[]);
  if (own.size === 0) return true;
  let present = 0;
  for (const word of own) if (words.has(word)) present++;
  return present / own.size >= MOST_WORDS;
}

function commandOf(input: Record<string, unknown>): string | undefined {
  const command = input.command ?? input.cmd;
  if (typeof command === 'string') return command;
  if (Array.isArray(command) && command.every((part) => typeof part === 'string')) {
    // Codex `shell` calls wrap the command as ["bash", "-lc", "…"]: the script is the command.
    return command.length === 3 && command[1] === '-lc' ? command[2] : command.join(' ');
  }
  return undefined;
}

function cutLine(text: string, length: number): string {
  const line = collapseWhitespace(text.split('\n').find((candidate) => candidate.trim() !== '') ?? '');
  return line.length > length ? line.slice(0, length) : line;
}
