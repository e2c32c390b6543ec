import type { TextEdit } from './tool-edits.js';
import type { WorkingSetDefinition, WorkingSetEdit } from './working-set-state.js';

/**
 * Where a line before `edit` (its new text at `line`) is after it: moved by the lines it added or
 * removed when it lies past the text the edit replaced, undefined when where the edit is is not
 * known (a Claude Code Edit of a file read in part shows no lines): a number it cannot stand behind.
 */
export function movedLines(edit: TextEdit, line: number | undefined): (at: number) => number | undefined {
  const added = lineBreaks(edit.newText) - lineBreaks(edit.oldText);
  if (added === 0 || edit.whole) return (at) => at;
  if (line === undefined) return () => undefined;
  const replacedEnd = line + lineBreaks(edit.oldText);
  return (at) => (at > replacedEnd ? at + added : at);
}

/** A definition at its lines after an edit; 0 (not shown) where they are not known. */
export function moveDefinition(moved: (at: number) => number | undefined) {
  return (definition: WorkingSetDefinition): WorkingSetDefinition => {
    if (definition.line === 0) return definition;
    const [line, endLine] = [moved(definition.line), moved(definition.endLine)];
    return line === undefined || endLine === undefined
      ? { ...definition, line: 0, endLine: 0 }
      : { ...definition, line, endLine };
  };
}

/** An earlier edit at its line after a later one; without a line where that is not known. */
export function moveEdit(moved: (at: number) => number | undefined) {
  return (edit: WorkingSetEdit): WorkingSetEdit => {
    if (edit.line === undefined) return edit;
    const { line: _before, ...rest } = edit;
    const line = moved(edit.line);
    return line === undefined ? rest : { ...rest, line };
  };
}

function lineBreaks(text: string): number {
  return text.split('\n').length - 1;
}
