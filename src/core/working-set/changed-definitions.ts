import type { CodeDefinition } from './code-outline.js';
import type { TextEdit } from './tool-edits.js';
import type { WorkingSetDefinition } from './working-set-state.js';

/**
 * The lines of an edit's new text it changed: those between the lines its old and new text share
 * at their start and at their end. An `apply_patch` hunk and a Claude Code Edit carry such context
 * lines (a patch's last context line opening the next test): they are where the edit is, not what
 * it changed. `count` is 0 for an edit that only removed lines.
 */
export function changedLines({ oldText, newText }: Pick<TextEdit, 'oldText' | 'newText'>): {
  skip: number;
  count: number;
} {
  const [before, after] = [oldText.split('\n'), newText.split('\n')];
  // A new file, or text added where there was none, shares nothing with what it replaced.
  if (oldText === '') return { skip: 0, count: after.length };
  const most = Math.min(before.length, after.length);
  let skip = 0;
  while (skip < most && before[skip] === after[skip]) skip++;
  let tail = 0;
  while (tail < most - skip && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  return { skip, count: after.length - skip - tail };
}

/**
 * The names an edit created or changed, its new text starting at `line` of the file: those it
 * wrote in its changed lines, and those whose lines its changed lines fall in (for one that only
 * removed lines, those around where they were).
 */
export function changedBy(
  definitions: readonly WorkingSetDefinition[],
  fragment: readonly CodeDefinition[] | undefined,
  line: number | undefined,
  edit: Pick<TextEdit, 'oldText' | 'newText'>,
): Set<string> {
  const { skip, count } = changedLines(edit);
  const at = (start: number): [number, number] =>
    count > 0 ? [start + skip, start + skip + count - 1] : [start + skip - 1, start + skip];
  // A fragment placed nowhere was outlined from line 1 of the edit's new text.
  const [written, writtenEnd] = at(line ?? 1);
  const changed = new Set(
    (fragment ?? [])
      .filter((definition) => writtenIn(definition, written, writtenEnd, count))
      .map((definition) => definition.name),
  );
  if (line === undefined) return changed;
  const [first, last] = at(line);
  const overlapping = definitions.filter((definition) => writtenIn(definition, first, last, count));
  // The innermost definitions around the edit: an edit inside a method changed the method, not its class.
  const innermost = overlapping.filter(
    (outer) => !overlapping.some((inner) => inner !== outer && contains(outer, inner)),
  );
  for (const definition of innermost.length > 0 ? innermost : overlapping) changed.add(definition.name);
  return changed;
}

/**
 * True when the changed lines `first`..`last` fall in `definition`; with `count` 0 (lines removed
 * between `first` and `last`), when it holds both.
 */
function writtenIn(definition: CodeDefinition, first: number, last: number, count: number): boolean {
  return count > 0
    ? definition.line <= last && definition.endLine >= first
    : definition.line <= first && definition.endLine >= last;
}

/** True when `inner` lies inside `outer` and is smaller. */
function contains(outer: WorkingSetDefinition, inner: WorkingSetDefinition): boolean {
  const inside = inner.line >= outer.line && inner.endLine <= outer.endLine;
  return inside && (inner.line > outer.line || inner.endLine < outer.endLine);
}
