import type { WorkingSetState } from '../working-set/working-set-state.js';

/**
 * The session ledger: what happened in a session, recorded by the compactor from the tool calls
 * and the user's messages (no model involved). Plain JSON so it persists with the compactor's
 * state; it outlives every hard compaction.
 */
export interface LedgerState {
  /** Assistant turns seen so far (the `turn` of every entry counts them from 1). */
  turn: number;
  /** Files read or changed, least recently touched first. */
  files: LedgerFile[];
  /** Shell commands, oldest first; a command run again moves to the end. */
  commands: LedgerCommand[];
  /** Failed calls of tools other than the shell (a failed command keeps its error on its entry). */
  errors: LedgerError[];
  /** The plan or todo list in force, verbatim, from the latest plan tool call. */
  plan?: { tool: string; turn: number; items: string[] };
  /** Every message the user typed, verbatim, oldest first. */
  userMessages: LedgerUserMessage[];
  /** Tool calls whose results have not been seen yet, by tool_use id. */
  open: Record<string, LedgerOpenCall>;
  /** The code the agent worked on (absent in a state written before it was recorded). */
  workingSet?: WorkingSetState;
}

export interface LedgerFile {
  path: string;
  /** `read`, or how it was last changed (`edit`, `write`, `patch`, `delete`). */
  action: string;
  /** True once the session changed it. */
  changed: boolean;
  turn: number;
  /** The call whose result holds its latest content or change (for recall ids and files back). */
  toolUseId: string;
}

export interface LedgerCommand {
  /** First line of the command. */
  command: string;
  turn: number;
  toolUseId: string;
  exitCode?: number;
  failed: boolean;
  /** First line of the output of a failed run (and the line naming the error, when that differs). */
  errorLine?: string;
  /** How many times it ran. */
  runs: number;
}

export interface LedgerError {
  /** `Tool(key argument)`. */
  call: string;
  /** Earlier calls that failed with the same line, oldest first. */
  others?: string[];
  turn: number;
  line: string;
}

export interface LedgerUserMessage {
  turn: number;
  text: string;
}

/** A file renamed (apply_patch `*** Move to:`, a shell `mv`): its path before and after. */
export interface FileMove {
  from: string;
  to: string;
}

/** A tool call waiting for its result. */
export interface LedgerOpenCall {
  kind: 'read' | 'change' | 'command' | 'task' | 'other';
  call: string;
  turn: number;
  paths?: string[];
  action?: string;
  /** Files the call renames, once its result says it worked. */
  moves?: FileMove[];
  /** Files a command edits in place (`sed -i`), once its result says it worked. */
  edits?: string[];
  /** Files the call removes (`rm`, a patch's `*** Delete File:`), once its result says it worked. */
  removes?: string[];
  command?: string;
  /** A task tool's operation, applied when its result says how it went. */
  task?: TaskOperation;
  /** The Codex unified exec session the command still runs in (polled by `write_stdin`). */
  session?: string;
}

/** What one of Claude Code's task tools (TaskCreate, TaskUpdate, TaskList) asks for. */
export type TaskOperation =
  | { op: 'create'; subject: string }
  | { op: 'update'; id: string; status?: string; subject?: string }
  | { op: 'list' };

/** An empty ledger. */
export function createLedgerState(): LedgerState {
  return { turn: 0, files: [], commands: [], errors: [], userMessages: [], open: {} };
}

/** True when `value` has the shape of a stored ledger (a state written by an older version has none). */
export function isLedgerState(value: unknown): value is LedgerState {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.turn === 'number' &&
    Array.isArray(record.files) &&
    Array.isArray(record.commands) &&
    Array.isArray(record.errors) &&
    Array.isArray(record.userMessages) &&
    typeof record.open === 'object' &&
    record.open !== null
  );
}
