import { hashText } from '../_internal/archive-ids.js';
import { fileName, safeJson, sliceHead } from '../_internal/text.js';
import type { ShellOutput } from '../ledger/shell-output.js';
import type { ToolCallFact } from '../ledger/tool-call-facts.js';
import type { ToolUseBlock } from '../model/messages.js';
import { changedBy } from './changed-definitions.js';
import { codeNames, forEachIdentifier } from './code-names.js';
import type { CodeDefinition, CodeParser } from './code-outline.js';
import {
  type FileRead,
  fileReadOf,
  manyFileReads,
  mayChange,
  readsManyFiles,
  type ShownRead,
  shownRead,
} from './file-reads.js';
import { KnownNames } from './known-names.js';
import { afterEdit, mergeChanged, mergeFragment, namesWord, spliceRange } from './merge-outline.js';
import { moveDefinition, movedLines, moveEdit } from './moved-lines.js';
import { outlineFile, stripLineNumbers } from './outline-file.js';
import { fullerPath, latestNameOf, sameFile } from './same-file.js';
import { pipedMatches, searchPlaces } from './search-hits.js';
import { applyEdit, editsOf, heredocWrites, type SearchCall, searchOf, type TextEdit } from './tool-edits.js';
import { useCount, type WorkingSetFile, type WorkingSetState } from './working-set-state.js';

/** Files kept in the state: the most recently touched (edited files outlive read ones). */
const MAX_FILES = 40;
const MAX_SEARCHES = 30;
/**
 * The latest edits kept per file: an agent's next edit often matches text it wrote a few edits
 * before (at Claude Code's own compaction points, 6 against 3 raised the next edits' exact text
 * still visible from 63% to 66%; the working set's budget still decides what is shown).
 */
const MAX_EDITS_PER_FILE = 6;
/** An edit's text is kept to this many lines and characters (the rest is in the archive). */
const EDIT_LINES = 10;
const EDIT_CHARS = 500;
/** The files a search found: the first ones (a Grep lists the most recently changed first). */
const MAX_HITS = 12;
/** Whole file texts kept in memory to place later edits (not persisted), the most recent. */
const MAX_TEXTS = 24;
const MAX_TEXT_CHARS = 400_000;
/** Outlines cached by text, so a file read again is not parsed again. */
const MAX_CACHED_OUTLINES = 64;
/** Of a call's input or the agent's text, this much is scanned for the names it uses. */
const SCAN_CHARS = 20_000;

type Pending =
  | { kind: 'read'; read: FileRead }
  | { kind: 'many-reads' }
  | { kind: 'change'; edits: TextEdit[] }
  | { kind: 'search'; search: SearchCall };

/**
 * Keeps a {@link WorkingSetState} up to date from the tool calls the ledger records, each once:
 * reads give a file's outline, edits the definitions they changed and their text, searches where
 * a symbol was found. Never throws on what a tool returned: text it cannot outline is left out.
 */
export class WorkingSetRecorder {
  private readonly texts = new Map<string, string>();
  private readonly outlines = new Map<string, CodeDefinition[] | undefined>();
  /** The outlines of the latest reads, by tool_use id. */
  private readonly readOutlines = new Map<string, { read: ShownFile; definitions: CodeDefinition[] }>();
  private readonly pending = new Map<string, Pending>();
  /**
   * The files each call edits in place (`sed -i`) and removes (`rm`, a patch's `*** Delete File:`),
   * by tool_use id, until its result says it ran.
   */
  private readonly shellChanges = new Map<string, { edits: string[]; removes: string[] }>();
  private known: KnownNames | undefined;

  constructor(
    public readonly state: WorkingSetState,
    private readonly parser?: CodeParser,
    /** False when the working set is off: calls are not read at all. */
    private readonly enabled = true,
  ) {}

  /** A call the agent made: what it will read, change or search for, and the names it uses. */
  toolUse(use: ToolUseBlock, fact: ToolCallFact, turn: number): void {
    if (!this.enabled) return;
    this.countUses(safeJson(use.input).slice(0, SCAN_CHARS));
    // A read or an edit touches its file itself; a command names the files it runs or changes.
    if (fact.kind === 'command') this.markNamed(fact.command.slice(0, SCAN_CHARS), turn);
    const id = String(use.id);
    const edits = fact.kind === 'command' ? (fact.edits ?? []) : [];
    const removes = fact.kind === 'command' || fact.kind === 'change' ? (fact.removes ?? []) : [];
    if (edits.length > 0 || removes.length > 0) this.shellChanges.set(id, { edits, removes });
    const search = searchOf(use, fact.kind === 'command' ? fact.command : undefined);
    const read = search ? undefined : fileReadOf(use, fact);
    if (search) this.pending.set(id, { kind: 'search', search });
    else if (read) this.pending.set(id, { kind: 'read', read });
    else if (readsManyFiles(use)) this.pending.set(id, { kind: 'many-reads' });
    else if (fact.kind === 'command') {
      // A `sed -i` or a redirect: the text kept of the files it names no longer places edits.
      for (const path of [...this.texts.keys()]) if (mayChange(fact.command, path)) this.texts.delete(path);
      const writes = heredocWrites(fact.command);
      if (writes.length > 0) this.pending.set(id, { kind: 'change', edits: writes });
    } else if (fact.kind === 'change') {
      const edits = editsOf(use, fact.paths[0]);
      if (edits.length > 0) this.pending.set(id, { kind: 'change', edits });
    }
  }

  /** The agent's own text: the names it uses. */
  assistantText(text: string): void {
    if (!this.enabled) return;
    this.countUses(text.slice(0, SCAN_CHARS));
  }

  /**
   * A call's result: the outline, edit or hits it gives. `text` as the tool returned it, with its
   * harness's shell wrapping as the ledger read it (null for none): a read needs to know whether
   * the harness cut the output, the rest takes what the command printed.
   */
  toolResult(toolUseId: string, result: ToolResultText, turn: number): void {
    const changes = result.failed ? undefined : this.shellChanges.get(toolUseId);
    this.shellChanges.delete(toolUseId);
    for (const path of changes?.edits ?? []) this.recordInPlaceEdit(path, turn);
    this.recordCall(toolUseId, result, turn);
    // Last: a script that writes, runs and removes a file leaves no file behind.
    for (const path of changes?.removes ?? []) this.recordRemoval(path);
  }

  private recordCall(toolUseId: string, result: ToolResultText, turn: number): void {
    const pending = this.pending.get(toolUseId);
    if (!pending) return;
    this.pending.delete(toolUseId);
    if (result.failed) return;
    const text = result.shell?.output ?? result.text;
    switch (pending.kind) {
      case 'read': {
        const shown = shownRead(pending.read, result.text, result.shell);
        if (shown) this.recordRead(toolUseId, pending.read, shown, turn);
        break;
      }
      case 'many-reads':
        // No outline kept by id: a placeholder of the call covers several files, not one.
        for (const { read, text: file } of manyFileReads(text)) {
          const shown = shownRead(read, file, null);
          if (shown) this.recordRead(undefined, read, shown, turn);
        }
        break;
      case 'change':
        for (const edit of pending.edits)
          if (edit.movedTo === undefined) this.recordEdit(edit, text, turn);
          else this.recordMove(edit.path, edit.movedTo, turn);
        break;
      case 'search':
        this.recordSearch(pending.search, text, turn);
        break;
      default: {
        const exhaustive: never = pending;
        throw new Error(`unknown working-set call ${JSON.stringify(exhaustive)}`);
      }
    }
    this.prune();
    this.known?.sync();
  }

  /** `toolUseId`: the call whose placeholder may name the outline (none for a read of many files). */
  private recordRead(toolUseId: string | undefined, read: FileRead, shown: ShownRead, turn: number): void {
    const path = this.nameOf(read.path);
    const { text, firstLine, whole } = shown;
    const definitions = this.outline(path, text, firstLine);
    if (definitions === undefined) return;
    if (toolUseId !== undefined)
      this.keepReadOutline(toolUseId, { path: read.path, firstLine, chars: text.length }, definitions);
    if (whole) this.keepText(path, text);
    const file = this.touch(path, turn);
    const lastLine = firstLine + newlines(text);
    file.definitions = whole
      ? mergeChanged(file.definitions, definitions)
      : spliceRange(file.definitions, definitions, firstLine, lastLine);
    file.names = namesOf(file, text);
  }

  private recordEdit(edit: TextEdit, result: string, turn: number): void {
    const path = this.nameOf(edit.path);
    const previous = this.texts.get(path);
    let current: string | undefined;
    let line: number | undefined;
    const edited = edit.whole || previous === undefined ? undefined : applyEdit(previous, edit);
    if (edit.whole) {
      current = edit.newText;
      line = 1;
    } else if (edited) {
      line = previous!.slice(0, edited.at).split('\n').length;
      current = edited.text;
    } else {
      line = lineInSnippet(result, edit.newText);
    }
    if (current === undefined) this.texts.delete(path);
    else this.keepText(path, current);
    const fragment = current === undefined ? this.outline(path, edit.newText, line ?? 1) : undefined;
    const outline = current === undefined ? undefined : this.outline(path, current, 1);
    if (outline === undefined && fragment === undefined) return;
    const file = this.touch(path, turn);
    file.edited = true;
    file.editedTurn = turn;
    const moved = movedLines(edit, line);
    const definitions = outline
      ? mergeChanged(file.definitions, outline)
      : mergeFragment(
          afterEdit(file.definitions, edit).map(moveDefinition(moved)),
          fragment ?? [],
          line !== undefined,
        );
    const changed = changedBy(definitions, fragment, line, edit);
    for (const definition of definitions) if (changed.has(definition.name)) definition.changedTurn = turn;
    file.definitions = definitions;
    file.names = withoutRenamed(namesOf(file, edit.newText), edit);
    file.edits = [
      ...file.edits.filter((earlier) => !replaces(edit, earlier.text)).map(moveEdit(moved)),
      {
        turn,
        ...(line === undefined ? {} : { line }),
        // An edit that only removed text is named by what it removed: "now:" would show nothing.
        ...(edit.newText.trim() === '' && edit.oldText.trim() !== ''
          ? { text: firstLine(edit.oldText), removed: true }
          : { text: cutEdit(edit.newText) }),
        definitions: [...changed],
      },
    ].slice(-MAX_EDITS_PER_FILE);
  }

  /**
   * A `sed -i` of a file: edited now (a read after it stays a read), where and how unknown, so no
   * definition is starred and its text is no longer kept. A file of no language it can outline is
   * left out, as an edit of one is.
   */
  private recordInPlaceEdit(written: string, turn: number): void {
    const path = this.nameOf(written);
    this.texts.delete(path);
    const known = this.state.files.some((file) => file.path === path);
    if (!known && this.outline(path, '', 1) === undefined) return;
    const file = this.touch(path, turn);
    file.edited = true;
    file.editedTurn = turn;
  }

  /**
   * A file removed (`rm`, `git rm`, a patch's `*** Delete File:`), or a folder and the files in it
   * (`rm -r`): gone from the working set, whose edits and outline said it holds that code.
   */
  private recordRemoval(removed: string): void {
    const gone = (path: string) => removes(path, removed.replace(/(.)\/+$/, '$1'));
    this.state.files = this.state.files.filter((file) => !gone(file.path));
    for (const path of [...this.texts.keys()]) if (gone(path)) this.texts.delete(path);
  }

  /** A file renamed (Codex's `*** Move to:`): known under its new name from now on, its old one gone. */
  private recordMove(path: string, movedTo: string, turn: number): void {
    const from = this.nameOf(path);
    const text = this.texts.get(from);
    this.texts.delete(from);
    if (text !== undefined) this.keepText(movedTo, text);
    const { files } = this.state;
    const file = files.find((entry) => entry.path === from);
    if (file === undefined) return;
    this.state.files = files.filter((entry) => entry !== file && entry.path !== movedTo);
    Object.assign(file, { path: movedTo, turn, edited: true, editedTurn: turn });
    this.state.files.push(file);
  }

  /**
   * The files a search found, one `path:line` each (its first match), so the agent can open them
   * again; a search of one file names none in its output, so its first `N:` line places it there.
   */
  private recordSearch({ pattern, file, piped }: SearchCall, result: string, turn: number): void {
    const { hits: found, lines } = piped ? pipedMatches(result) : searchPlaces(result, file);
    const hits = found.slice(0, MAX_HITS).map((entry) => entry.hit);
    const searches = this.state.searches.filter((search) => search.pattern !== pattern);
    searches.push({ pattern, turn, hits, total: found.length, ...(lines > 0 ? { lines } : {}) });
    this.state.searches = searches.slice(-MAX_SEARCHES);
  }

  /**
   * The outline of the file a recent read call showed, as recorded, or undefined: what a
   * placeholder names without parsing the result again.
   */
  readOutline(toolUseId: string, shown: ShownFile): CodeDefinition[] | undefined {
    const recorded = this.readOutlines.get(toolUseId);
    // A client that reuses tool_use ids (`call_0` on every turn) must not get another read's names.
    const same =
      recorded?.read.path === shown.path &&
      recorded.read.firstLine === shown.firstLine &&
      recorded.read.chars === shown.chars;
    return same ? recorded.definitions : undefined;
  }

  /** The outline a read call showed, for its placeholder; the oldest of {@link MAX_CACHED_OUTLINES} go. */
  private keepReadOutline(toolUseId: string, read: ShownFile, definitions: CodeDefinition[]): void {
    if (this.readOutlines.size >= MAX_CACHED_OUTLINES)
      this.readOutlines.delete(this.readOutlines.keys().next().value!);
    this.readOutlines.delete(toolUseId);
    this.readOutlines.set(toolUseId, { read, definitions });
  }

  /** A file's outline, parsed once per distinct text. */
  private outline(path: string, text: string, firstLine: number): CodeDefinition[] | undefined {
    const key = `${path.slice(path.lastIndexOf('.'))}\u0000${firstLine}\u0000${text.length}\u0000${hashText(text)}`;
    if (this.outlines.has(key)) return this.outlines.get(key);
    const definitions = outlineFile(path, text, this.parser, firstLine);
    if (this.outlines.size >= MAX_CACHED_OUTLINES) this.outlines.delete(this.outlines.keys().next().value!);
    this.outlines.set(key, definitions);
    return definitions;
  }

  private keepText(path: string, text: string): void {
    this.texts.delete(path);
    if (text.length > MAX_TEXT_CHARS) return;
    this.texts.set(path, text);
    if (this.texts.size > MAX_TEXTS) this.texts.delete(this.texts.keys().next().value!);
  }

  /**
   * The name the state knows `path`'s file by (see `same-file.ts`); a relative name known before
   * gives way to an absolute one.
   */
  private nameOf(path: string): string {
    const { files } = this.state;
    const paths = files.map((file) => file.path);
    const known = latestNameOf(paths, path) ?? latestNameOf(this.texts.keys(), path);
    if (known === undefined || known === path) return path;
    const name = fullerPath(known, path);
    if (name !== known) {
      for (const file of files) if (file.path === known) file.path = name;
      const text = this.texts.get(known);
      this.texts.delete(known);
      if (text !== undefined) this.texts.set(name, text);
    }
    return name;
  }

  /** The file's entry, moved to the end (most recent). */
  private touch(path: string, turn: number): WorkingSetFile {
    const index = this.state.files.findIndex((file) => file.path === path);
    const file =
      index === -1
        ? { path, edited: false, turn, definitions: [], edits: [] }
        : this.state.files.splice(index, 1)[0]!;
    file.turn = turn;
    this.state.files.push(file);
    return file;
  }

  /** Keeps the newest files (edited ones first) and the uses of names still known. */
  private prune(): void {
    const { files } = this.state;
    while (files.length > MAX_FILES) {
      const oldestRead = files.findIndex((file) => !file.edited);
      files.splice(oldestRead === -1 ? 0 : oldestRead, 1);
    }
  }

  /** The files a command names (runs, searches, changes): still in use, though not read again. */
  private markNamed(command: string, turn: number): void {
    for (const file of this.state.files) {
      const name = fileName(file.path);
      if (name !== '' && command.includes(name)) file.namedTurn = turn;
    }
  }

  private countUses(text: string): void {
    if (text === '') return;
    this.known ??= new KnownNames(this.state);
    if (this.known.size === 0) return;
    const { known } = this;
    const { uses } = this.state;
    forEachIdentifier(text, (name) => {
      // `__proto__` cannot be a key of a plain object: that name is not counted.
      if (known.has(name) && name !== '__proto__') uses[name] = useCount(uses, name) + 1;
    });
  }
}

/** A call's result as the ledger read it. */
export interface ToolResultText {
  text: string;
  /** The harness's shell wrapping of `text` (see `ledger/shell-output.ts`), null for none. */
  shell: ShellOutput | null;
  failed: boolean;
}

/** Which text of a file a read showed: enough to tell two reads under one tool_use id apart. */
export interface ShownFile {
  path: string;
  firstLine: number;
  chars: number;
}

/** The names `text` uses that the file does not define, before those an earlier look gave. */
function namesOf(file: WorkingSetFile, text: string): string[] {
  return codeNames(text, new Set(file.definitions.map((definition) => definition.name)), file.names);
}

/** True when removing `removed` removes the file at `path`: that file, or a folder it is in. */
function removes(path: string, removed: string): boolean {
  for (let end = path.length; end > 0; end = path.lastIndexOf('/', end - 1))
    if (sameFile(path.slice(0, end), removed)) return true;
  return false;
}

/**
 * `names` without those a `replace_all` edit replaced every occurrence of and did not write again
 * (`oldHelper(` → `newHelper(`): the file no longer uses them.
 */
function withoutRenamed(names: string[], edit: TextEdit): string[] {
  if (!edit.replaceAll) return names;
  const gone = new Set<string>();
  forEachIdentifier(edit.oldText, (name) => {
    if (!namesWord(edit.newText, name)) gone.add(name);
  });
  return names.filter((name) => !gone.has(name));
}

/** How many line breaks `text` holds, without splitting it into lines (this runs on every read). */
function newlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** Where an edit's text starts in the numbered snippet a tool shows after editing (Claude Code's Edit). */
function lineInSnippet(result: string, newText: string): number | undefined {
  const start = result.search(/^ *\d+(?:\t|→)/m);
  if (start === -1) return undefined;
  const { text, firstLine } = stripLineNumbers(result.slice(start));
  const first = newText
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim();
  if (first === undefined) return undefined;
  const index = text.split('\n').findIndex((line) => line.trim() === first);
  return index === -1 ? undefined : firstLine + index;
}

/** True when an edit rewrote an earlier edit's region (its first line is in what it replaced). */
function replaces(edit: TextEdit, earlier: string): boolean {
  const first = earlier.split('\n', 1)[0]!.trim();
  return edit.whole || (first !== '' && edit.oldText.includes(first));
}

/** The first line of `text` that is not blank, cut to the characters an edit's text is kept to. */
function firstLine(text: string): string {
  const line = text.split('\n').find((entry) => entry.trim() !== '') ?? '';
  return sliceHead(line.trim(), EDIT_CHARS);
}

function cutEdit(text: string): string {
  const lines = text.split('\n');
  let cut = lines.slice(0, EDIT_LINES).join('\n');
  if (cut.length > EDIT_CHARS) cut = sliceHead(cut, EDIT_CHARS);
  return cut.length < text.length ? `${cut}\n… (${lines.length} lines in all)` : cut;
}
