/**
 * The working set: the code the agent worked on, recorded by the compactor from its tool calls
 * (no model involved). Plain JSON, kept in the session ledger's state, so it outlives every hard
 * compaction like the ledger does.
 */
export interface WorkingSetState {
  /** Files read or edited that have code, least recently touched first. */
  files: WorkingSetFile[];
  /** Searches the agent ran (Grep, `rg`, `grep`), oldest first. */
  searches: WorkingSetSearch[];
  /** How many times the agent named each known symbol after it was found (calls, edits, its own text). */
  uses: Record<string, number>;
}

export interface WorkingSetFile {
  path: string;
  /** True once the agent edited or wrote it. */
  edited: boolean;
  /** The assistant turn it was last read or edited in. */
  turn: number;
  /** The turn an edit last changed (or renamed) it: a later read moves `turn`, not this. */
  editedTurn?: number;
  /** The last turn a call named it (ran it, searched or changed it with a command). */
  namedTurn?: number;
  /** Its outline as last seen: definitions in file order. */
  definitions: WorkingSetDefinition[];
  /** The latest edits, oldest first: where they are and their text now. */
  edits: WorkingSetEdit[];
  /** Names its code uses that it does not define (calls, fields, types), the most used first. */
  names?: string[];
}

export interface WorkingSetDefinition {
  name: string;
  kind: string;
  signature: string;
  line: number;
  endLine: number;
  /** The turn an edit last created or changed it. */
  changedTurn?: number;
}

export interface WorkingSetEdit {
  turn: number;
  /** Its first line in the file after the edit, when known. */
  line?: number;
  /** The text the edit wrote (cut to its first lines); with `removed`, the first line of what it removed. */
  text: string;
  /** True when the edit wrote nothing in place of what it replaced. */
  removed?: boolean;
  /** The definitions it created or changed. */
  definitions: string[];
}

export interface WorkingSetSearch {
  /** What was searched for, as written. */
  pattern: string;
  turn: number;
  /** The files it found, one `path:line` (its first hit) or path each, the first few. */
  hits: string[];
  /** Lines it matched in text its output names no file of (a grep of piped output). */
  lines?: number;
  /** How many files it found in all. */
  total: number;
}

/**
 * How many times the agent used `name`, from `uses`: its own count, never what a plain object
 * inherits (`uses.toString` is a function, `uses.constructor` is `Object`: counted as `(uses[name]
 * ?? 0) + 1`, a method named `toString` turned its count into a string and its rank into NaN).
 */
export function useCount(uses: Readonly<Record<string, number>>, name: string): number {
  const count = Object.hasOwn(uses, name) ? uses[name] : undefined;
  return typeof count === 'number' && Number.isFinite(count) ? count : 0;
}

/** An empty working set. */
export function createWorkingSetState(): WorkingSetState {
  return { files: [], searches: [], uses: {} };
}

/** True when `value` has the shape of a stored working set. */
export function isWorkingSetState(value: unknown): value is WorkingSetState {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    Array.isArray(record.files) &&
    Array.isArray(record.searches) &&
    typeof record.uses === 'object' &&
    record.uses !== null
  );
}
