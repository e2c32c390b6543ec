import { commonDirectory } from '../_internal/common-directory.js';
import { escapeReservedTags, fittingItems, sliceHead } from '../_internal/text.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { forEachIdentifier } from './code-names.js';
import { functionsFirst } from './code-outline.js';
import {
  useCount,
  type WorkingSetDefinition,
  type WorkingSetFile,
  type WorkingSetState,
} from './working-set-state.js';

export const workingSetOpen = '<working_set';
const header = 'Code the agent worked on, from its tool calls (* = changed by its edits).';
/** Definitions of a file not shown with their signature are listed by name, up to this many. */
const MAX_NAMES = 24;
/** A search's files are listed up to this many, in up to this many characters (at least one). */
const SHOWN_HITS = 8;
const SHOWN_HITS_CHARS = 240;
/** Weights of the ranking: how recent the file or search is, and how often the agent used a name since. */
const RECENCY_WEIGHT = 4;
const CHANGED_WEIGHT = 3;
const EDIT_WEIGHT = 2.5;
const USE_WEIGHT = 0.6;
/** A search's line against a file's: the files it found are next to open (tuned on the survival bench). */
const SEARCH_WEIGHT = 2;
/** The names a file's code uses rank just above its other definitions' names. */
const NAMES_WEIGHT = 0.75;

/** The working set as text, and the files it shows (the ledger does not list them again). */
export interface RenderedWorkingSet {
  text: string;
  files: ReadonlySet<string>;
}

/** One line (or block) the working set may show, with its rank. */
interface Candidate {
  file: string;
  /** Order within the file's group. */
  order: number;
  text: string;
  score: number;
  tokens: number;
}

/** How the working set is rendered. */
export interface WorkingSetRenderOptions {
  maxTokens: number;
  counter: TokenCounter;
  /**
   * The text that goes out of files shown beside the working set (files back after a hard
   * compaction), by path: what that text already holds is not repeated, so the budget goes to
   * the other files.
   */
  shown?: ReadonlyMap<string, string>;
}

/**
 * The working set as a `<working_set>` block within `maxTokens`: per file (edited files first,
 * then by recency), the definitions its edits created or changed with their signature and line,
 * the text of its latest edits, the outline of files read; then what searches found where. The
 * lines kept are the highest ranked by recency and by how often the agent used each name since.
 * Undefined when there is nothing to show or no room.
 */
export function renderWorkingSet(
  state: WorkingSetState,
  { maxTokens, counter, shown }: WorkingSetRenderOptions,
): RenderedWorkingSet | undefined {
  if (maxTokens <= 0) return undefined;
  const latest = Math.max(
    1,
    ...state.files.map((file) => Math.max(file.turn, file.namedTurn ?? 0)),
    ...state.searches.map((search) => search.turn),
  );
  const root = commonDirectory(state.files.map((file) => file.path));
  const candidates = [
    ...state.files.flatMap((file) => fileCandidates(file, state.uses, latest, shown?.get(file.path))),
    ...searchCandidates(state, latest, root),
  ].map((candidate) => ({ ...candidate, tokens: counter.countText(candidate.text) + 1 }));
  if (candidates.length === 0) return undefined;
  const fixed = counter.countText(header) + 12;
  const headings = new Map(state.files.map((file) => [file.path, fileHeading(file, root)]));
  let total = fixed;
  const kept: Candidate[] = [];
  const opened = new Set<string>();
  for (const candidate of [...candidates].sort((left, right) => right.score - left.score)) {
    const heading = opened.has(candidate.file)
      ? 0
      : counter.countText(headings.get(candidate.file) ?? '') + 1;
    if (total + heading + candidate.tokens > maxTokens) continue;
    total += heading + candidate.tokens;
    opened.add(candidate.file);
    kept.push(candidate);
  }
  // The estimate misses how lines join: drop the lowest ranked lines while the text is over.
  kept.sort((left, right) => right.score - left.score);
  while (kept.length > 0) {
    const text = formatWorkingSet(kept, headings, root);
    if (counter.countText(text) <= maxTokens)
      return { text, files: new Set(kept.flatMap((candidate) => (candidate.file ? [candidate.file] : []))) };
    kept.pop();
  }
  return undefined;
}

function formatWorkingSet(kept: readonly Candidate[], headings: Map<string, string>, root: string): string {
  const groups = new Map<string, Candidate[]>();
  for (const candidate of kept) {
    const group = groups.get(candidate.file);
    if (group) group.push(candidate);
    else groups.set(candidate.file, [candidate]);
  }
  const order = [...groups].sort(([, left], [, right]) => best(right) - best(left));
  const body = order.map(([file, lines]) => {
    const heading = headings.get(file) ?? '## Searches';
    return [heading, ...lines.sort((left, right) => left.order - right.order).map((line) => line.text)].join(
      '\n',
    );
  });
  // The common directory is a path the agent wrote: escaped like the rest.
  const under = root ? ` Paths under ${escapeReservedTags(root)}.` : '';
  return `${workingSetOpen}>\n${header}${under}\n${escapeReservedTags(body.join('\n'))}\n</working_set>`;
}

function best(candidates: readonly Candidate[]): number {
  return Math.max(...candidates.map((candidate) => candidate.score));
}

/**
 * `## path (edited t5)`, `(edited t5, read t9)` when the agent read it after its last edit (the
 * read's turn alone would date an edit that was not made then), or `(read t9)`.
 */
function fileHeading(file: WorkingSetFile, root: string): string {
  const edited = file.edited ? (file.editedTurn ?? file.turn) : undefined;
  const touched =
    edited === undefined
      ? `read t${file.turn}`
      : `edited t${edited}${file.turn > edited ? `, read t${file.turn}` : ''}`;
  return `## ${file.path.slice(root.length)} (${touched})`;
}

/**
 * A file's lines: changed definitions and the latest edits first, then the outline by use. The
 * edit texts and names `shownText` (the file's text going out beside the working set) already
 * holds are left out; its changed definitions stay, the map of what the agent changed where.
 */
function fileCandidates(
  file: WorkingSetFile,
  uses: Readonly<Record<string, number>>,
  latest: number,
  shownText?: string,
): Omit<Candidate, 'tokens'>[] {
  // A file the agent still runs or names is in use though it was not read again since.
  const recency =
    (RECENCY_WEIGHT * Math.max(file.turn, file.namedTurn ?? 0)) / latest + (file.edited ? 1 : 0);
  const hidden = shownWords(shownText);
  const listed = file.definitions.filter(
    (definition) => definition.changedTurn !== undefined || useCount(uses, definition.name) > 0,
  );
  const candidates = [
    ...definitionLines(file, listed, uses, recency),
    ...editLines(file, recency, shownText),
  ];
  const also = alsoLine(file, new Set(listed), hidden, recency);
  if (also !== undefined) candidates.push(also);
  const names = namesLine(file, uses, hidden);
  if (names !== undefined)
    candidates.push({
      file: file.path,
      order: Number.MAX_SAFE_INTEGER - file.edits.length - 2,
      text: names,
      score: recency + NAMES_WEIGHT,
    });
  return candidates;
}

/** A line per definition the agent changed or used, ranked by recency, change and use. */
function definitionLines(
  file: WorkingSetFile,
  listed: readonly WorkingSetDefinition[],
  uses: Readonly<Record<string, number>>,
  recency: number,
): Omit<Candidate, 'tokens'>[] {
  return listed.map((definition) => ({
    file: file.path,
    order: definition.line,
    // `12: func f() {` as `grep -n` prints it: the line as written, for an edit to match.
    text: `- ${definition.changedTurn === undefined ? '' : '* '}${definition.line > 0 ? `${definition.line}: ` : ''}${definition.signature}`,
    score:
      recency +
      (definition.changedTurn === undefined ? 0 : CHANGED_WEIGHT) +
      USE_WEIGHT * Math.log2(1 + useCount(uses, definition.name)),
  }));
}

/** The text of each edit `shownText` does not hold already, the latest ranked first. */
function editLines(file: WorkingSetFile, recency: number, shownText?: string): Omit<Candidate, 'tokens'>[] {
  const lines: Omit<Candidate, 'tokens'>[] = [];
  file.edits.forEach((edit, index) => {
    if (!edit.removed && shownText?.includes(edit.text.replace(cutTrailer, ''))) return;
    const at = edit.line === undefined ? '' : ` at :${edit.line}`;
    const names = edit.definitions.length > 0 ? ` (${edit.definitions.join(', ')})` : '';
    const text = edit.text
      .split('\n')
      .map((line) => `    ${line}`)
      .join('\n');
    lines.push({
      file: file.path,
      order: Number.MAX_SAFE_INTEGER - file.edits.length + index,
      text: `Edit t${edit.turn}${at}${names}, ${edit.removed ? 'removed' : 'now'}:\n${text}`,
      score: recency + EDIT_WEIGHT - (file.edits.length - 1 - index),
    });
  });
  return lines;
}

/** The file's other names, functions first, each once (overloads are one name to grep for). */
function alsoLine(
  file: WorkingSetFile,
  listed: ReadonlySet<WorkingSetDefinition>,
  hidden: ReadonlySet<string>,
  recency: number,
): Omit<Candidate, 'tokens'> | undefined {
  const others = file.definitions.filter(
    (definition) => !listed.has(definition) && !hidden.has(definition.name),
  );
  const rest = [...new Set(functionsFirst(others).map((definition) => definition.name))].slice(0, MAX_NAMES);
  if (rest.length === 0) return undefined;
  return {
    file: file.path,
    order: Number.MAX_SAFE_INTEGER - file.edits.length - 1,
    // Names alone: a line number each would double the line, and a Grep finds the name again.
    text: `- also: ${rest.join(', ')}`,
    score: recency + 0.5,
  };
}

/** The line that ends an edit's text cut to its first lines (`cutEdit` in record-working-set.ts). */
const cutTrailer = /\n… \(\d+ lines in all\)$/;

/** The identifiers of a text shown beside the working set. */
function shownWords(text: string | undefined): ReadonlySet<string> {
  const words = new Set<string>();
  if (text !== undefined) forEachIdentifier(text, (word) => words.add(word));
  return words;
}

/** The names the file's code uses that `hidden` does not hold, those the agent used most since first. */
function namesLine(
  file: WorkingSetFile,
  uses: Readonly<Record<string, number>>,
  hidden: ReadonlySet<string>,
): string | undefined {
  const names = (file.names ?? [])
    .filter((name) => !hidden.has(name))
    .sort((left, right) => useCount(uses, right) - useCount(uses, left));
  return names.length === 0 ? undefined : `- uses: ${names.join(', ')}`;
}

/** A search each, the files it found after it: the agent opens them again without searching again. */
function searchCandidates(state: WorkingSetState, latest: number, root: string): Omit<Candidate, 'tokens'>[] {
  return state.searches.map((search, index) => {
    const places = fittingItems(
      search.hits.slice(0, SHOWN_HITS).map((hit) => underRoot(hit, root)),
      SHOWN_HITS_CHARS,
    );
    const more = search.total > places.length ? ` (${search.total} files)` : '';
    const found =
      places.length > 0
        ? `${places.join(', ')}${more}`
        : search.lines
          ? `${search.lines} matching line${search.lines === 1 ? '' : 's'}`
          : 'nothing found';
    const uses = [...search.pattern.matchAll(/[A-Za-z_$][\w$]{2,}/g)].reduce(
      (sum, [name]) => sum + useCount(state.uses, name),
      0,
    );
    return {
      file: '',
      order: index,
      text: `- "${search.pattern.length > 120 ? `${sliceHead(search.pattern, 119)}…` : search.pattern}" → ${found}`,
      score: (RECENCY_WEIGHT * search.turn) / latest + SEARCH_WEIGHT + USE_WEIGHT * Math.log2(1 + uses),
    };
  });
}

/** A path with the common directory cut, whether written absolute or relative to a parent of it. */
function underRoot(path: string, root: string): string {
  if (root === '') return path;
  if (path.startsWith(root)) return path.slice(root.length);
  for (let at = root.indexOf('/'); at !== -1 && at < root.length - 1; at = root.indexOf('/', at + 1)) {
    const tail = root.slice(at + 1);
    if (path.startsWith(tail)) return path.slice(tail.length);
  }
  return path;
}
