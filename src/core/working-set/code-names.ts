/**
 * The names a file's code uses: the functions it calls, the fields and types it names. An outline
 * lists what a file defines; the agent's next edit in that file also calls and names what is
 * defined elsewhere (`fmt.Errorf`, `filepath.Join`, a struct's fields), and without them it reads
 * the file again to write one line.
 */

/** Names kept per file, the most used first (a line of about 60 tokens in the working set). */
export const MAX_CODE_NAMES = 30;
/** Words of three or more characters that may be names (`matchAll` on a global pattern copies it). */
export const identifierWords = /[A-Za-z_$][\w$]{2,}/g;
/** Of a file's text, this much is scanned (minified or huge files give no useful vocabulary). */
const SCAN_CHARS = 200_000;
/** Words of a language, not names: `(` after them does not make them a call. */
const keywords = new Set(
  'if for while switch catch return function typeof sizeof elif and not func def fn new make len append print super self this await async'.split(
    ' ',
  ),
);
/**
 * The words of `text` (`[A-Za-z_$][\w$]*`) that read as names in code: an inner `_`
 * (`MAX_TOKENS`), a capital after its first letter beside a lowercase one (`sessionID`,
 * `HasPrefix`), or a call (`Errorf(`); builtins and keywords the agent knows anyway are left out.
 * One pass over the characters, slicing only the words kept: this runs on every file the agent reads.
 */
function forEachNameWord(text: string, found: (name: string) => void): void {
  let index = 0;
  while (index < text.length) {
    if (!isWordStart(text.charCodeAt(index))) {
      index++;
      continue;
    }
    const start = index;
    let lower = false;
    let upperAfterFirst = false;
    let innerUnderscore = false;
    for (let code = text.charCodeAt(index); isWordPart(code); code = text.charCodeAt(++index)) {
      if (code >= 97 && code <= 122) lower = true;
      else if (code >= 65 && code <= 90) upperAfterFirst ||= index > start;
      if (
        isAlphanumeric(code) &&
        index - start >= 2 &&
        text.charCodeAt(index - 1) === 95 &&
        isAlphanumeric(text.charCodeAt(index - 2))
      )
        innerUnderscore = true;
    }
    if (index - start < 3) continue;
    const called = text.charCodeAt(index) === 40;
    if (!innerUnderscore && !(lower && upperAfterFirst) && !called) continue;
    const name = text.slice(start, index);
    if (!keywords.has(name)) found(name);
  }
}

function isAlphanumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** `[A-Za-z_$]`. */
function isWordStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36;
}

/** `[\w$]`; NaN past the end is not. */
function isWordPart(code: number): boolean {
  return isWordStart(code) || (code >= 48 && code <= 57);
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
  forEachNameWord(scanned, (name) => {
    if (!except.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
  });
  const ranked = [...counts].sort((left, right) => right[1] - left[1]).map(([name]) => name);
  // Names seen in this text first, then those an earlier look at the file gave.
  const merged = new Set([...ranked, ...before.filter((name) => !except.has(name))]);
  return [...merged].slice(0, MAX_CODE_NAMES);
}
