/**
 * The names a file's code uses: the functions it calls, the fields and types it names. An outline
 * lists what a file defines; the agent's next edit in that file also calls and names what is
 * defined elsewhere (`fmt.Errorf`, `filepath.Join`, a struct's fields), and without them it reads
 * the file again to write one line.
 */

/** Names kept per file, the most used first (a line of about 60 tokens in the working set). */
export const MAX_CODE_NAMES = 30;
/** Of a file's text, this much is scanned (minified or huge files give no useful vocabulary). */
const SCAN_CHARS = 200_000;
/** Words of a language, not names: `(` after them does not make them a call. */
const keywords = new Set(
  'if for while switch catch return function typeof sizeof elif and not func def fn new make len append print super self this await async'.split(
    ' ',
  ),
);
const word = /[A-Za-z_$][\w$]*/g;

/**
 * True for a word that reads as a name in code: an inner `_` (`MAX_TOKENS`), a capital after its
 * first letter beside a lowercase one (`sessionID`, `HasPrefix`), or a call (`Errorf(`); builtins
 * and keywords the agent knows anyway are left out.
 */
function isCodeName(name: string, called: boolean): boolean {
  if (name.length < 3 || keywords.has(name)) return false;
  if (/[A-Za-z0-9]_[A-Za-z0-9]/.test(name)) return true;
  if (/[a-z]/.test(name) && /[A-Z]/.test(name.slice(1))) return true;
  return called;
}

/**
 * The code names `text` uses, most frequent first (ties in order of first use), without the names
 * in `except` (the file's own definitions, listed apart), then the names `before` held (an earlier
 * look at the same file), at most {@link MAX_CODE_NAMES}.
 *
 * @example
 * codeNames('err := fmt.Errorf("x")\nreturn fmt.Errorf("y")', new Set()) // ['Errorf']
 */
export function codeNames(
  text: string,
  except: ReadonlySet<string>,
  before: readonly string[] = [],
): string[] {
  const counts = new Map<string, number>();
  const scanned = text.slice(0, SCAN_CHARS);
  for (const match of scanned.matchAll(word)) {
    const name = match[0];
    if (except.has(name)) continue;
    const called = scanned[match.index + name.length] === '(';
    if (isCodeName(name, called)) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const ranked = [...counts].sort((left, right) => right[1] - left[1]).map(([name]) => name);
  // Names seen in this text first, then those an earlier look at the file gave.
  const merged = new Set([...ranked, ...before.filter((name) => !except.has(name))]);
  return [...merged].slice(0, MAX_CODE_NAMES);
}
