/**
 * Validation relative to what the client sent: a shape the client's request already holds (a
 * role, a block type, a field) is one its provider accepts, so a compacted request that keeps it,
 * moves it with its turn or drops it with the history is not rejected for it. Only what the
 * compaction itself made invalid counts (an unpaired call, a lost signature).
 */
import type { ValidationProblem } from '../model/problems.js';

/**
 * A problem's identity without its position: indices and index ranges (`messages[12]`,
 * `messages[3..5]`) become `[*]`, since a compaction moves turns but a moved shape is the same shape.
 */
function problemKey(problem: ValidationProblem): string {
  const unplaced = (text: string) => text.replace(/\[\d+(?:\.\.\d+)?\]/g, '[*]');
  return `${problem.rule}\u0000${unplaced(problem.path)}\u0000${unplaced(problem.message)}`;
}

/**
 * The problems of `after` that `before` does not already hold, counted as a multiset: a shape the
 * input has once excuses it once, so a compaction that copies a bad block is still caught.
 */
export function introducedProblems(
  before: readonly ValidationProblem[],
  after: readonly ValidationProblem[],
): ValidationProblem[] {
  if (before.length === 0) return [...after];
  const excused = new Map<string, number>();
  for (const problem of before) {
    const key = problemKey(problem);
    excused.set(key, (excused.get(key) ?? 0) + 1);
  }
  return after.filter((problem) => {
    const key = problemKey(problem);
    const left = excused.get(key) ?? 0;
    if (left === 0) return true;
    excused.set(key, left - 1);
    return false;
  });
}
