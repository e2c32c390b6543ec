/**
 * Files back after a hard compaction: the files the agent is working on, in their current text
 * (after its edits), so it need not read them again. Edited files first, newest first, then the
 * files it read; a file too large for what is left of the budget goes back as the regions around
 * its edits; a file read only in parts goes back as the parts it read last; a file the kept turn
 * shows, or whose text the history does not hold, is skipped.
 */
import { blockText, escapeReservedTags } from '../_internal/text.js';
import { contentBlocks, type Message } from '../model/messages.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { withoutLineNumber } from '../working-set/outline-file.js';
import { type CurrentFile, currentFiles } from './hard-current-files.js';
import type { FilePart } from './hard-file-parts.js';
import { focusNames, focusRanges } from './hard-focus.js';

/** Lines kept above and below each edit: the code the next edit most often touches. */
const REGION_CONTEXT_LINES = 15;

/** How many files and tokens of their content go back after a hard compaction. */
export interface FilesBackSettings {
  maxFiles: number;
  maxTokens: number;
}

/** A file that goes back: its path and its `<file>` block. */
export interface FileBack {
  path: string;
  block: string;
}

/**
 * Lines of at least this many characters say which code they are; shorter ones (`}`, `return nil`)
 * are in any file, and do not count when telling whether a file's text is shown elsewhere.
 */
const TELLING_LINE_CHARS = 20;
/** A file whose telling lines the output after the head mostly holds already does not go back. */
const SHOWN_SHARE = 0.8;

/**
 * The files that go back after the summary, within `settings`: each path and `<file>` block.
 * `after`: what the output sends after its head (the latest request, the kept turn); a file it
 * reads, or whose text it holds (a plan pasted into the request), does not go back.
 */
export function filesBack(
  history: readonly Message[],
  after: readonly Message[],
  settings: FilesBackSettings,
  counter: TokenCounter,
): FileBack[] {
  if (settings.maxFiles <= 0 || settings.maxTokens <= 0) return [];
  const shown = new Set(currentFiles(after).flatMap((file) => (known(file) ? [file.path] : [])));
  const shownLines = linesOf(after.flatMap((message) => contentBlocks(message).map(blockText)));
  const candidates = currentFiles(history)
    .filter((file) => known(file) && !shown.has(file.path))
    .reverse();
  const ordered = [...candidates.filter((file) => file.edited), ...candidates.filter((file) => !file.edited)];
  const files: FileBack[] = [];
  const focus = focusNames(history);
  let left = settings.maxTokens;
  for (const file of ordered) {
    if (files.length >= settings.maxFiles) break;
    const block = fileBlock(file, { maxTokens: left, focus }, counter);
    if (block === undefined || mostlyShown(block, shownLines)) continue;
    left -= counter.countText(block);
    files.push({ path: file.path, block });
  }
  return files;
}

/**
 * The lines of `texts`, trimmed, without a line number a read put before them
 * (`withoutLineNumber`): what a file's own lines are compared with.
 */
function linesOf(texts: readonly string[]): Set<string> {
  const lines = new Set<string>();
  for (const text of texts) for (const line of text.split('\n')) lines.add(withoutLineNumber(line).trim());
  return lines;
}

/** True when `shown` holds most of the block's telling lines (and it has a few). */
function mostlyShown(block: string, shown: ReadonlySet<string>): boolean {
  if (shown.size === 0) return false;
  const telling = block
    .split('\n')
    .slice(1, -1)
    .map((line) => line.trim())
    .filter((line) => line.length >= TELLING_LINE_CHARS);
  if (telling.length < 3) return false;
  const held = telling.filter((line) => shown.has(line)).length;
  return held >= telling.length * SHOWN_SHARE;
}

/** True when the history holds the file's text, whole or in parts. */
function known(file: CurrentFile): boolean {
  return file.text !== undefined || file.parts.length > 0;
}

/**
 * The file whole within `maxTokens`, else the regions around its edits and the definitions the
 * agent's latest words name, else nothing.
 */
function fileBlock(
  file: CurrentFile,
  { maxTokens, focus }: { maxTokens: number; focus: ReadonlyMap<string, number> },
  counter: TokenCounter,
): string | undefined {
  if (file.text === undefined) return partsBlock(file, maxTokens, counter);
  const text = file.text;
  const whole = `<file path="${escapeAttribute(file.path)}" as-of="t${file.turn}">\n${escapeReservedTags(text)}\n</file>`;
  if (counter.countText(whole) <= maxTokens) return whole;
  // Lowest priority first: the named definitions, then the edits, the latest last (where the agent is).
  let ranges = mergeOverlapping([...focusRanges(file.path, text, focus), ...editRanges(text, file.edits)]);
  while (ranges.length > 0) {
    const block = regionsBlock(file, text, ranges);
    if (counter.countText(block) <= maxTokens) return block;
    ranges = ranges.slice(1);
  }
  return undefined;
}

/**
 * A file read in parts: its parts within `maxTokens` (the oldest left out first), else the regions
 * around the edits in the latest part, else the latest part's first lines (where the agent chose
 * to start reading), else nothing.
 */
function partsBlock(file: CurrentFile, maxTokens: number, counter: TokenCounter): string | undefined {
  const fits = (block: string) => counter.countText(block) <= maxTokens;
  for (let first = 0; first < file.parts.length; first++) {
    const block = partsText(file, file.parts.slice(first));
    if (fits(block)) return block;
  }
  const latest = file.parts.at(-1)!;
  let ranges = mergeOverlapping(editRanges(latest.text, file.edits));
  for (; ranges.length > 0; ranges = ranges.slice(1)) {
    const block = partsText(file, rangeParts(latest, ranges));
    if (fits(block)) return block;
  }
  const lines = latest.text.split('\n');
  let low = 0;
  let high = lines.length - 1;
  // The most lines from the part's start that fit.
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (fits(partsText(file, [{ ...latest, text: lines.slice(0, middle).join('\n') }]))) low = middle;
    else high = middle - 1;
  }
  return low === 0 ? undefined : partsText(file, [{ ...latest, text: lines.slice(0, low).join('\n') }]);
}

/** The lines of `ranges` (zero-based, within the part) as parts of their own. */
function rangeParts(part: FilePart, ranges: readonly [number, number][]): FilePart[] {
  const lines = part.text.split('\n');
  return [...ranges]
    .sort((left, right) => left[0] - right[0])
    .map(([start, end]) => ({
      firstLine: part.firstLine + start,
      text: lines.slice(start, Math.min(end, lines.length - 1) + 1).join('\n'),
    }));
}

/** Parts in file order, each with its one-based lines in the `lines` attribute. */
function partsText(file: CurrentFile, parts: readonly FilePart[]): string {
  const sorted = [...parts].sort((left, right) => left.firstLine - right.firstLine);
  const spans = sorted
    .map((part) => `${part.firstLine}-${part.firstLine + part.text.split('\n').length - 1}`)
    .join(',');
  const body = sorted.map((part) => part.text).join('\n…\n');
  return `<file path="${escapeAttribute(file.path)}" as-of="t${file.turn}" lines="${spans}">\n${escapeReservedTags(body)}\n</file>`;
}

/** Zero-based line ranges around each edit found in the text, the latest edit last. */
function editRanges(text: string, edits: readonly string[]): [number, number][] {
  const lineOf = lineStarts(text);
  const ranges: [number, number][] = [];
  for (const edit of edits) {
    const at = edit === '' ? -1 : text.indexOf(edit);
    if (at === -1) continue;
    const first = lineOf(at);
    const last = lineOf(at + edit.length);
    ranges.push([Math.max(0, first - REGION_CONTEXT_LINES), last + REGION_CONTEXT_LINES]);
  }
  return ranges;
}

/** A function from a character offset to its zero-based line. */
function lineStarts(text: string): (offset: number) => number {
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1))
    starts.push(index + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  };
}

/** Ranges that overlap or touch become one, keeping the order of their latest member. */
function mergeOverlapping(ranges: [number, number][]): [number, number][] {
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const overlapping = merged.filter(([start, end]) => range[0] <= end + 1 && start <= range[1] + 1);
    const start = Math.min(range[0], ...overlapping.map(([first]) => first));
    const end = Math.max(range[1], ...overlapping.map(([, last]) => last));
    for (const each of overlapping) merged.splice(merged.indexOf(each), 1);
    merged.push([start, end]);
  }
  return merged;
}

/** The regions in file order, each with its one-based lines in the `lines` attribute. */
function regionsBlock(file: CurrentFile, text: string, ranges: readonly [number, number][]): string {
  const lines = text.split('\n');
  const sorted = [...ranges]
    .map(([start, end]): [number, number] => [start, Math.min(end, lines.length - 1)])
    .sort((left, right) => left[0] - right[0]);
  const spans = sorted.map(([start, end]) => `${start + 1}-${end + 1}`).join(',');
  const body = sorted.map(([start, end]) => lines.slice(start, end + 1).join('\n')).join('\n…\n');
  return `<file path="${escapeAttribute(file.path)}" as-of="t${file.turn}" lines="${spans}" of="${lines.length}">\n${escapeReservedTags(body)}\n</file>`;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
