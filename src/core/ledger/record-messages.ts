import { hashText } from '../_internal/archive-ids.js';
import { fingerprintMessage } from '../_internal/fingerprint.js';
import { isCompactorText, isHarnessText, slashCommandText } from '../_internal/harness-text.js';
import { failureLine, keyArgument, toolOutcome } from '../_internal/placeholder.js';
import { pathTail, shortenLine, toolResultText } from '../_internal/text.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import { bridgeText, summaryAcknowledgement } from '../summary/summary-format.js';
import type { CodeParser } from '../working-set/code-outline.js';
import { WorkingSetRecorder } from '../working-set/record-working-set.js';
import { createWorkingSetState, isWorkingSetState } from '../working-set/working-set-state.js';
import {
  createLedgerState,
  type FileMove,
  type LedgerFile,
  type LedgerOpenCall,
  type LedgerState,
} from './ledger-state.js';
import { SeenCalls } from './seen-calls.js';
import { readShellOutput, type ShellOutput } from './shell-output.js';
import { applyTaskOperation } from './task-list.js';
import { toolCallFact } from './tool-call-facts.js';

/** Commands are recorded to this many characters: enough to recognise and re-run one (the ledger shows 300). */
const COMMAND_CHARS = 400;
const ERROR_LINE_CHARS = 240;
/** A path in a failed call is cut from its start to this many characters: the file's name stays. */
const CALL_PATH_CHARS = 48;
/** Calls that failed with the same error are listed on its entry, up to this many (the newest). */
const SAME_ERROR_CALLS = 6;
/** Codex and some harnesses report the exit code as JSON metadata. */
const jsonExitCode = /"exit_code"\s*:\s*(-?\d+)/;
/** Claude Code's failed Bash result opens with `Exit code N`: the line after it says what failed. */
const bareExitLine = /^exit code:? -?\d+$/i;
/** Where a command still running in a Codex unified exec session waits, in `state.open`. */
const sessionKey = (session: string) => `exec-session:${session}`;

/**
 * Keeps a {@link LedgerState} up to date with the history, reading each message once: a call that
 * only appended messages costs only the new ones (like the history index).
 */
export class LedgerRecorder {
  private snapshot: Message[] = [];
  /** Tool calls, assistant texts and user texts already recorded, so a history read again is not counted twice. */
  private readonly seenCalls = new SeenCalls();
  private readonly seenTexts = new Set<string>();
  private readonly seenUserTexts = new Set<string>();
  private readonly listed = new ListedPaths();

  /** True for a ledger restored from a stored state that has not read a history yet. */
  private restored: boolean;
  /** The code the agent worked on, recorded from the same calls. */
  readonly workingSet: WorkingSetRecorder;

  /** `workingSet: false` records no working set (its budget is 0: no parsing, no file texts kept). */
  constructor(
    public state: LedgerState = createLedgerState(),
    { parser, workingSet = true }: { parser?: CodeParser | undefined; workingSet?: boolean } = {},
  ) {
    this.restored = state !== undefined && state.turn > 0;
    if (!isWorkingSetState(state.workingSet)) state.workingSet = createWorkingSetState();
    this.workingSet = new WorkingSetRecorder(state.workingSet, parser, workingSet);
    for (const id of Object.keys(state.open)) this.seenCalls.restoreOpen(id);
    for (const message of state.userMessages) this.seenUserTexts.add(message.text);
  }

  /**
   * A restored ledger recorded everything up to the last output its session returned: when a call
   * starts with that output (`recorded`), only what follows it is new.
   */
  resume(recorded: readonly Message[]): void {
    if (!this.restored) return;
    this.restored = false;
    if (this.snapshot.length === 0) this.snapshot = recorded.slice();
  }

  /** Records what `messages` add to what was recorded last time. */
  sync(messages: readonly Message[]): void {
    // A ledger restored without the output it recorded up to reads the history again: dedupe it.
    const unread = this.restored && this.snapshot.length === 0;
    this.restored = false;
    let common = 0;
    const limit = Math.min(this.snapshot.length, messages.length);
    while (common < limit && this.snapshot[common] === messages[common]) common++;
    // A caller that sends copies (a proxy, a fleet worker) repeats what was recorded: the same
    // content, not the same objects. Compared by content, so every process records the same.
    while (
      common < limit &&
      fingerprintMessage(this.snapshot[common]!) === fingerprintMessage(messages[common]!)
    ) {
      common++;
    }
    // The history grew by what follows: all new, even a call under an id recorded before.
    const appended = common === this.snapshot.length && !unread;
    if (common < this.snapshot.length) this.snapshot = this.snapshot.slice(0, common);
    const seen = { calls: this.seenCalls, texts: this.seenTexts, userTexts: this.seenUserTexts, appended };
    for (let index = common; index < messages.length; index++) {
      const message = messages[index]!;
      recordMessage(this.state, message, seen, this.workingSet, this.listed);
      this.snapshot.push(message);
    }
  }

  /** The compactor rewrote the history: its output holds nothing new to record. */
  adopt(messages: readonly Message[]): void {
    this.snapshot = messages.slice();
  }
}

/** What a ledger recorded already, and whether the messages it reads now follow all of it. */
interface Seen {
  calls: SeenCalls;
  /** Assistant texts (by hash) and user texts. */
  texts: Set<string>;
  userTexts: Set<string>;
  appended: boolean;
}

function recordMessage(
  state: LedgerState,
  message: Message,
  seen: Seen,
  workingSet: WorkingSetRecorder,
  listed: ListedPaths,
): void {
  const blocks =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  if (message.role === 'assistant') {
    const uses = blocks.filter((block) => block.type === 'tool_use') as ToolUseBlock[];
    // A history read again (a caller that sends copies, not the array it got) adds no turn: a
    // turn is new when it has a new call, or text not seen before (the compactor's own excepted).
    const text = blocks.map((block) => (block.type === 'text' ? String(block.text) : '')).join('\n');
    let isNew: boolean;
    if (uses.length > 0) isNew = uses.some((use) => seen.calls.isNew(use, seen.appended));
    else {
      const textKey = hashText(text);
      isNew = text !== summaryAcknowledgement && !seen.texts.has(textKey);
      seen.texts.add(textKey);
    }
    if (isNew) state.turn++;
    if (isNew && text.trim() !== '') workingSet.assistantText(text);
    for (const use of uses)
      if (seen.calls.isNew(use, seen.appended)) recordToolUse(state, use, seen.calls, workingSet);
    return;
  }
  for (const block of blocks) {
    if (block.type === 'tool_result') recordToolResult(state, block as ToolResultBlock, workingSet, listed);
    else if (block.type === 'text' && typeof block.text === 'string') {
      const text = block.text;
      if (text.trim() === '' || text === bridgeText || seen.userTexts.has(text)) continue;
      if (isCompactorText(text)) continue;
      // Harness markup (`<bash-stdout>`, `Caveat:` lines) and injected reminders are not words the
      // user typed; of a slash command's markup, the command and its arguments are.
      const typed = slashCommandText(text) ?? (isHarnessText(text) ? undefined : text);
      if (typed === undefined) continue;
      seen.userTexts.add(text);
      state.userMessages.push({ turn: state.turn + 1, text: typed });
    }
  }
}

/** A call not recorded yet (see {@link SeenCalls}). */
function recordToolUse(
  state: LedgerState,
  use: ToolUseBlock,
  seenCalls: SeenCalls,
  workingSet: WorkingSetRecorder,
): void {
  const id = String(use.id);
  seenCalls.add(use);
  const fact = toolCallFact(use);
  workingSet.toolUse(use, fact, state.turn);
  const polled = pollsSession(state, use);
  if (polled) {
    state.open[id] = polled;
    return;
  }
  const path = fact.kind === 'read' || fact.kind === 'change' ? fact.paths[0] : undefined;
  const call = `${String(use.name)}(${path === undefined ? keyArgument(use.input) : pathTail(path, CALL_PATH_CHARS)})`;
  const open: LedgerOpenCall = { kind: 'other', call, turn: state.turn };
  switch (fact.kind) {
    case 'plan':
      state.plan = { tool: String(use.name), turn: state.turn, items: fact.items };
      break;
    case 'read':
      state.open[id] = { ...open, kind: 'read', paths: fact.paths };
      return;
    case 'change':
      state.open[id] = { ...open, kind: 'change', paths: fact.paths, action: fact.action, ...filesOf(fact) };
      return;
    case 'command':
      state.open[id] = { ...open, kind: 'command', command: fact.command, ...filesOf(fact) };
      return;
    case 'task':
      state.open[id] = { ...open, kind: 'task', task: fact.operation };
      return;
    case 'other':
      break;
    default: {
      const exhaustive: never = fact;
      throw new Error(`unknown tool call fact ${JSON.stringify(exhaustive)}`);
    }
  }
  state.open[id] = open;
}

function recordToolResult(
  state: LedgerState,
  result: ToolResultBlock,
  workingSet: WorkingSetRecorder,
  listed: ListedPaths,
): void {
  const id = String(result.tool_use_id);
  const call = state.open[id];
  if (!call) return;
  delete state.open[id];
  const text = toolResultText(result);
  const shell = readShellOutput(text);
  const { exitCode, failed, errorLine } = shell ? shellOutcome(result, shell) : resultOutcome(result, text);
  workingSet.toolResult(id, { text, shell: shell ?? null, failed }, call.turn);
  if (call.kind === 'task' && call.task && !failed) {
    applyTaskOperation(state, call.task, call.turn, text);
    return;
  }
  if (call.kind === 'command' && call.command !== undefined) {
    if (!failed) {
      for (const move of call.moves ?? []) renameFile(state, move, call.turn, listed);
      for (const path of call.edits ?? [])
        touchFile(state, listedName(state, path), call, id, listed, 'edit');
      for (const path of call.removes ?? []) removeFile(state, path, call.turn, id, listed);
    }
    const command = shortenLine(firstCommandLine(call.command), COMMAND_CHARS);
    if (shell?.sessionId !== undefined)
      state.open[sessionKey(shell.sessionId)] = { ...call, session: shell.sessionId };
    else if (call.session !== undefined) delete state.open[sessionKey(call.session)];
    // A poll of a running command ends the run its call recorded, not a new one.
    const running = call.session === undefined ? undefined : runningEntry(state, command);
    if (running) {
      Object.assign(running, { failed, toolUseId: id }, exitCode === undefined ? {} : { exitCode });
      if (errorLine) running.errorLine = errorLine;
      return;
    }
    // A command run again replaces its entry, unless that run failed: its error line stays.
    const previous = state.commands.findIndex((entry) => entry.command === command && !entry.failed);
    const runs = previous === -1 ? 1 : state.commands[previous]!.runs + 1;
    if (previous !== -1) state.commands.splice(previous, 1);
    state.commands.push({
      command,
      turn: call.turn,
      toolUseId: id,
      failed,
      runs,
      ...(exitCode === undefined ? {} : { exitCode }),
      ...(errorLine ? { errorLine } : {}),
    });
    return;
  }
  if (failed) {
    const line = errorLine ?? 'failed';
    // The same error again (a refused edit, results lost from the transcript) is one entry naming
    // its latest calls: each may be the only mention of a file.
    const same = state.errors.findIndex((entry) => entry.line === line);
    const earlier = same === -1 ? undefined : state.errors.splice(same, 1)[0];
    const others = earlier
      ? [...(earlier.others ?? []), earlier.call]
          .filter((other) => other !== call.call)
          .slice(1 - SAME_ERROR_CALLS)
      : [];
    state.errors.push({ call: call.call, turn: call.turn, line, ...(others.length > 0 ? { others } : {}) });
    return;
  }
  for (const move of call.moves ?? []) forgetFile(state, move.from, listed);
  for (const path of call.paths ?? []) {
    const moved = call.moves?.find((move) => move.from === path);
    const removed = call.removes?.includes(path) === true;
    touchFile(state, moved?.to ?? path, call, id, listed, removed ? 'delete' : undefined);
  }
}

/** The files a call renames, edits in place or removes, for its open entry. */
function filesOf(fact: {
  moves?: FileMove[];
  edits?: string[];
  removes?: string[];
}): Partial<LedgerOpenCall> {
  return {
    ...(fact.moves ? { moves: fact.moves } : {}),
    ...(fact.edits ? { edits: fact.edits } : {}),
    ...(fact.removes ? { removes: fact.removes } : {}),
  };
}

/**
 * The listed entry a command's path names: the same path, or for a relative one (commands are
 * run in the project) the entry it ends (`/repo/src/a.ts` for `src/a.ts`).
 */
function listedEntry(state: LedgerState, path: string): LedgerFile | undefined {
  const relative = !path.startsWith('/') && !path.startsWith('..');
  const tail = `/${path.replace(/^\.\//, '')}`;
  return state.files.find((file) => file.path === path || (relative && file.path.endsWith(tail)));
}

/** The name the ledger lists `path`'s file by, or `path` for a file not listed. */
function listedName(state: LedgerState, path: string): string {
  return listedEntry(state, path)?.path ?? path;
}

/**
 * A shell `rm` of a listed file: listed as deleted, no longer as a file that holds its changes. A
 * file not listed (a build output, a temporary file) is not added.
 */
function removeFile(
  state: LedgerState,
  path: string,
  turn: number,
  toolUseId: string,
  listed: ListedPaths,
): void {
  const entry = listedEntry(state, path);
  if (!entry) return;
  forgetFile(state, entry.path, listed);
  state.files.push({ ...entry, action: 'delete', changed: true, turn, toolUseId });
  listed.pushed(state.files, entry.path);
}

/** Drops `path`'s entry: the file no longer has that name. */
function forgetFile(state: LedgerState, path: string, listed: ListedPaths): LedgerFile | undefined {
  if (!listed.has(state.files, path)) return undefined;
  const index = state.files.findIndex((file) => file.path === path);
  const [file] = index === -1 ? [] : state.files.splice(index, 1);
  listed.removed(state.files, path);
  return file;
}

/**
 * A shell `mv` of a listed file: its entry takes the new name (as the session wrote the old one:
 * `/repo/src/a.ts` for `mv src/a.ts src/b.ts` run in `/repo`) and keeps what was done to it.
 */
function renameFile(state: LedgerState, { from, to }: FileMove, turn: number, listed: ListedPaths): void {
  const entry = listedEntry(state, from);
  if (!entry) return;
  const base = entry.path.slice(0, entry.path.length - from.replace(/^\.\//, '').length);
  const path = to.startsWith('/') || entry.path === from ? to : `${base}${to.replace(/^\.\//, '')}`;
  forgetFile(state, entry.path, listed);
  forgetFile(state, path, listed);
  state.files.push({ ...entry, path, turn });
  listed.pushed(state.files, path);
}

function touchFile(
  state: LedgerState,
  path: string,
  call: LedgerOpenCall,
  toolUseId: string,
  listed: ListedPaths,
  /** How the call changed this file, when not as `call.action` says (a patch deleting it, a `sed -i`). */
  change?: string,
): void {
  const index = listed.has(state.files, path) ? state.files.findIndex((file) => file.path === path) : -1;
  const previous = index === -1 ? undefined : state.files.splice(index, 1)[0];
  const changed = call.kind === 'change' || change !== undefined || previous?.changed === true;
  state.files.push({ path, action: change ?? call.action ?? 'read', changed, turn: call.turn, toolUseId });
  listed.pushed(state.files, path);
}

/**
 * The paths a ledger's `files` lists, so that touching a file not listed yet scans nothing: the
 * list is never cut and holds thousands of files in a long session. Read again from the list
 * when it is not the array, or not the length, this recorder left it at (a replaced state).
 */
class ListedPaths {
  private files: readonly LedgerFile[] | undefined;
  private length = 0;
  private readonly paths = new Set<string>();

  has(files: readonly LedgerFile[], path: string): boolean {
    if (files !== this.files || files.length !== this.length) {
      this.paths.clear();
      for (const file of files) this.paths.add(file.path);
      this.files = files;
      this.length = files.length;
    }
    return this.paths.has(path);
  }

  /** `path`'s entry was taken out of `files` (after {@link has} on the same list). */
  removed(files: readonly LedgerFile[], path: string): void {
    this.paths.delete(path);
    this.length = files.length;
  }

  /** `path` was pushed onto `files` (after {@link has} on the same list). */
  pushed(files: readonly LedgerFile[], path: string): void {
    this.paths.add(path);
    this.length = files.length;
  }
}

type Outcome = { exitCode?: number | undefined; failed: boolean; errorLine?: string | undefined };

function resultOutcome(result: ToolResultBlock, text: string): Outcome {
  const outcome = toolOutcome(result, text);
  const exitCode = outcome.exitCode ?? numberOf(jsonExitCode.exec(text)?.[1]);
  const failed = outcome.failed || (exitCode !== undefined && exitCode !== 0);
  return { exitCode, failed, errorLine: failed ? describeError(text, outcome.errorLine) : undefined };
}

/** A wrapped shell result: its exit code from the wrapping, its error line from what the command printed. */
function shellOutcome(result: ToolResultBlock, shell: ShellOutput): Outcome {
  const { exitCode } = shell;
  const failed = result.is_error === true || (exitCode !== undefined && exitCode !== 0);
  const line = failed ? failureLine(shell.output) : undefined;
  return {
    exitCode,
    failed,
    errorLine: line === undefined ? undefined : shortenLine(line, ERROR_LINE_CHARS),
  };
}

/** A `write_stdin` to a Codex unified exec session still running: its result is the command's. */
function pollsSession(state: LedgerState, use: ToolUseBlock): LedgerOpenCall | undefined {
  if (String(use.name) !== 'write_stdin') return undefined;
  const session = (use.input as { session_id?: unknown } | undefined)?.session_id;
  if (typeof session !== 'number' && typeof session !== 'string') return undefined;
  const running = state.open[sessionKey(String(session))];
  return running ? { ...running, session: String(session) } : undefined;
}

/** The latest run of `command` whose end was not seen yet. */
function runningEntry(state: LedgerState, command: string): LedgerState['commands'][number] | undefined {
  for (let index = state.commands.length - 1; index >= 0; index--) {
    const entry = state.commands[index]!;
    if (entry.command === command) return entry.exitCode === undefined && !entry.failed ? entry : undefined;
  }
  return undefined;
}

/** The first line of a failed result, with the line naming the error when the first is only `Exit code N`. */
function describeError(text: string, namedLine: string | undefined): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const first = lines[0]?.trim() ?? '';
  let detail = '';
  if (bareExitLine.test(first)) {
    const named = namedLine && namedLine !== first ? namedLine : lines[1]?.trim();
    if (named) detail = ` — ${shortenLine(named, ERROR_LINE_CHARS)}`;
  }
  return `${shortenLine(first, ERROR_LINE_CHARS)}${detail}` || 'failed';
}

/**
 * The line of a script that says what it runs: its first, after the blank lines and `#` comments
 * that open it (`# Reply to the review\ngh api …` ran `gh api …`, not the comment), with the lines
 * a trailing `\` continues it on (`git add a.go \` named one of the files it added).
 */
export function firstCommandLine(command: string): string {
  const lines = command.replace(/\\\r?\n[ \t]*/g, ' ').split('\n');
  return lines.find((line) => line.trim() !== '' && !line.trimStart().startsWith('#')) ?? lines[0]!;
}

function numberOf(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}
