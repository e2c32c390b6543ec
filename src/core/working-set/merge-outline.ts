/**
 * A file's known outline after a read or an edit: a new outline over the old one, keeping when
 * each definition was last changed; a part read again; an edit of a file whose text is not known.
 */
import type { CodeDefinition } from './code-outline.js';
import type { TextEdit } from './tool-edits.js';
import type { WorkingSetDefinition } from './working-set-state.js';

/** A whole new outline, keeping when each definition was last changed. */
export function mergeChanged(
  before: readonly WorkingSetDefinition[],
  after: readonly CodeDefinition[],
): WorkingSetDefinition[] {
  const changed = new Map(
    before.flatMap((definition) =>
      definition.changedTurn === undefined ? [] : [[definition.name, definition.changedTurn] as const],
    ),
  );
  return after.map((definition) => {
    const turn = changed.get(definition.name);
    return turn === undefined ? { ...definition } : { ...definition, changedTurn: turn };
  });
}

/**
 * The known definitions once `edit` is made, where the file's text is not known: one whose first
 * line the edit replaced is gone unless the new text still names it (a function deleted, or
 * renamed by a `replace_all` of `oldName(`), and one whose first line holds the replaced text
 * has that line rewritten. Else a deleted function stayed in the outline.
 */
export function afterEdit(
  definitions: readonly WorkingSetDefinition[],
  edit: TextEdit,
): WorkingSetDefinition[] {
  const { oldText, newText } = edit;
  if (oldText.trim() === '') return [...definitions];
  const oldLines = new Set(oldText.split('\n').map((line) => line.trim()));
  return definitions.flatMap((definition) => {
    const signature = definition.signature.trim();
    if (!oldText.includes('\n') && signature.includes(oldText)) {
      const rewritten = signature.split(oldText).join(newText);
      return namesWord(rewritten, definition.name) ? [{ ...definition, signature: rewritten }] : [];
    }
    const replaced = signature !== '' && oldLines.has(signature);
    return replaced && !namesWord(newText, definition.name) ? [] : [definition];
  });
}

/** True when `text` holds `name` as a whole word. */
export function namesWord(text: string, name: string): boolean {
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + name.length] ?? ' ';
    if (!/[\w$]/.test(before) && !/[\w$]/.test(after)) return true;
  }
  return false;
}

/** A part of the file read again: its definitions replace those in the same lines. */
export function spliceRange(
  before: readonly WorkingSetDefinition[],
  part: readonly CodeDefinition[],
  firstLine: number,
  lastLine: number,
): WorkingSetDefinition[] {
  const names = new Set(part.map((definition) => definition.name));
  const outside = before.filter(
    (definition) =>
      !names.has(definition.name) && (definition.line < firstLine || definition.line > lastLine),
  );
  return [...outside, ...mergeChanged(before, part)].sort((left, right) => left.line - right.line);
}

/** The definitions an edit wrote, over the file's known outline (by name). */
export function mergeFragment(
  before: readonly WorkingSetDefinition[],
  fragment: readonly CodeDefinition[],
  placed: boolean,
): WorkingSetDefinition[] {
  const names = new Set(fragment.map((definition) => definition.name));
  const merged = [
    ...before.filter((definition) => !names.has(definition.name)),
    ...fragment.map((definition) => ({ ...definition })),
  ];
  // Lines of an edit that could not be placed are unknown: 0 keeps them apart from real lines.
  if (!placed)
    for (const definition of merged) if (names.has(definition.name)) definition.line = definition.endLine = 0;
  return merged.sort((left, right) => left.line - right.line);
}
