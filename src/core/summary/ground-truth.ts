/**
 * The ground truth a summary call's instructions carry, less what the history already shows: a
 * session's earlier summary (at the head of the history it summarizes) holds the ledger and the
 * working set as they were, and most of their lines stay the same from one summary to the next
 * (a task quoted whole among them). The model reads those lines there, from the prompt cache; the
 * instructions say how many stand as they were instead of sending them again as new input.
 */

/** A run shorter than this many characters costs less than the note that would replace it. */
const MIN_RUN_CHARS = 60;
/** Places in the earlier text tried for one line (a line as common as `}` has many). */
const MAX_CANDIDATES = 64;

/** Headings and tags: the record's structure, kept so that every new line stays under its section. */
function isStructure(line: string): boolean {
  return line.startsWith('#') || line.startsWith('<');
}

/** Where each line of `earlier` is, by its text (the texts kept apart by an empty line that matches nothing). */
function linePlaces(earlier: readonly string[]): { lines: string[]; places: Map<string, number[]> } {
  const lines = earlier.flatMap((text, index) => (index === 0 ? [] : ['\u0000']).concat(text.split('\n')));
  const places = new Map<string, number[]>();
  lines.forEach((line, index) => {
    if (line.trim() === '' || isStructure(line)) return;
    const found = places.get(line);
    if (found === undefined) places.set(line, [index]);
    else if (found.length < MAX_CANDIDATES) found.push(index);
  });
  return { lines, places };
}

/**
 * `groundTruth` with each run of its lines found, in the same order, in `earlier` (the texts of
 * earlier summaries in the history) replaced by one note; headings, tags, short runs and new or
 * changed lines stay as they are.
 */
export function groundTruthBeside(groundTruth: string, earlier: readonly string[]): string {
  const { lines: before, places } = linePlaces(earlier);
  const lines = groundTruth.split('\n');
  const output: string[] = [];
  let index = 0;
  while (index < lines.length) {
    let run = 0;
    for (const start of places.get(lines[index]!) ?? []) {
      let length = 0;
      while (
        index + length < lines.length &&
        !isStructure(lines[index + length]!) &&
        lines[index + length] === before[start + length]
      )
        length++;
      run = Math.max(run, length);
    }
    const chars = lines.slice(index, index + run).reduce((sum, line) => sum + line.length + 1, 0);
    if (run > 0 && chars >= MIN_RUN_CHARS) {
      output.push(`[${run} ${run === 1 ? 'line' : 'lines'} as in the earlier summary above]`);
      index += run;
    } else {
      output.push(lines[index]!);
      index++;
    }
  }
  return output.join('\n');
}
