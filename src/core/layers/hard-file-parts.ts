/**
 * The parts of a file the history shows when it never shows the whole file: the lines of each
 * partial read (`offset` / `limit`), with the agent's later edits made in them. An agent reads a
 * large file a part at a time, and the part it read last is most often the one it edits next.
 */

import { applyEdit } from '../working-set/tool-edits.js';

/** The parts kept per file, the latest: older reads are where the agent was. */
const MAX_PARTS = 3;

/** Lines of a file from `firstLine` (one-based) on, as the history last showed them. */
export interface FilePart {
  firstLine: number;
  text: string;
}

/** The parts with a newly read one: it replaces the parts it overlaps, and is the latest. */
export function withPart(parts: readonly FilePart[], part: FilePart): FilePart[] {
  const last = lastLine(part);
  const apart = parts.filter((each) => lastLine(each) < part.firstLine || each.firstLine > last);
  return [...apart, part].slice(-MAX_PARTS);
}

/**
 * The parts with an edit made in the one that holds its old text (the lines of the parts below
 * it move with it), or undefined when no part holds it.
 */
export function editParts(
  parts: readonly FilePart[],
  oldText: string,
  newText: string,
): FilePart[] | undefined {
  for (const [index, edited] of parts.entries()) {
    const text = applyEdit(edited.text, { oldText, newText })?.text;
    if (text === undefined) continue;
    const moved = newText.split('\n').length - oldText.split('\n').length;
    return parts.map((part, at) => {
      if (at === index) return { firstLine: part.firstLine, text };
      return part.firstLine > edited.firstLine ? { ...part, firstLine: part.firstLine + moved } : part;
    });
  }
  return undefined;
}

function lastLine(part: FilePart): number {
  return part.firstLine + part.text.split('\n').length - 1;
}
