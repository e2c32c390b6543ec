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
/** Words of a language, not names: `(` after them does not make them a call. All plain lowercase. */
const keywords = new Set(
  'if for while switch catch return function typeof sizeof elif and not func def fn new make len append print super self this await async'.split(
    ' ',
  ),
);
/** Classes of the ASCII characters, as bits: one table lookup per character of a file read. */
const WORD_START = 1;
const UNDERSCORE = 2;
const DIGIT = 4;
const LOWER = 8;
const UPPER = 16;
const ALPHANUMERIC = DIGIT | LOWER | UPPER;
const asciiClasses = new Uint8Array(128).map((_, code) => {
  if (code >= 97 && code <= 122) return WORD_START | LOWER;
  if (code >= 65 && code <= 90) return WORD_START | UPPER;
  if (code === 95) return WORD_START | UNDERSCORE;
  if (code === 36) return WORD_START;
  return code >= 48 && code <= 57 ? DIGIT : 0;
});

/** The class bits of a character code; 0 for any other character and for NaN past the end. */
function classOf(code: number): number {
  return code < 128 ? asciiClasses[code]! : 0;
}

/**
 * Calls `found` with each word `identifierWords` matches in `text`, in order, by the character
 * table instead of `matchAll` (no copied pattern, no match arrays): the working set runs this on
 * every call and text of the agent.
 */
export function forEachIdentifier(text: string, found: (word: string) => void): void {
  let index = 0;
  while (index < text.length) {
    if ((classOf(text.charCodeAt(index)) & WORD_START) === 0) {
      index++;
      continue;
    }
    const start = index;
    while (classOf(text.charCodeAt(++index)) !== 0);
    // A shorter run holds no match: each later start in it ends where it ends.
    if (index - start >= 3) found(text.slice(start, index));
  }
}

/**
 * Counts into `counts` the words of `text`'s first {@link SCAN_CHARS} (`[A-Za-z_$][\w$]*`) that
 * read as names in code: an inner `_` (`MAX_TOKENS`), a capital after its first letter beside a
 * lowercase one (`sessionID`, `HasPrefix`), or a call (`Errorf(`); keywords and the names in
 * `except` are left out. One pass over the characters, slicing only the words kept, with no copy
 * of the text and no callback: this runs on every file the agent reads.
 */
function countNameWords(text: string, except: ReadonlySet<string>, counts: Map<string, number>): void {
  const end = Math.min(text.length, SCAN_CHARS);
  let index = 0;
  while (index < end) {
    const first = classOf(text.charCodeAt(index));
    if ((first & WORD_START) === 0) {
      index++;
      continue;
    }
    const start = index;
    // Lowercase anywhere, uppercase only after the first character.
    let cases = first & LOWER;
    let innerUnderscore = false;
    let previous = first;
    let beforePrevious = 0;
    for (index++; index < end; index++) {
      const kind = classOf(text.charCodeAt(index));
      if (kind === 0) break;
      cases |= kind;
      if (kind & ALPHANUMERIC && previous & UNDERSCORE && beforePrevious & ALPHANUMERIC)
        innerUnderscore = true;
      beforePrevious = previous;
      previous = kind;
    }
    if (index - start < 3) continue;
    const called = index < end && text.charCodeAt(index) === 40;
    const mixedCase = (cases & (LOWER | UPPER)) === (LOWER | UPPER);
    if (!innerUnderscore && !mixedCase && !called) continue;
    const name = text.slice(start, index);
    // Keywords are plain lowercase words: only a call may be one.
    if (!innerUnderscore && !mixedCase && keywords.has(name)) continue;
    if (!except.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
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
  countNameWords(text, except, counts);
  const names = rankedNames(counts);
  // Names seen in this text first, then those an earlier look at the file gave.
  for (const name of before) {
    if (names.length >= MAX_CODE_NAMES) break;
    if (except.has(name) || counts.has(name)) continue;
    // Counted as listed, so a name `before` holds twice is listed once.
    counts.set(name, 0);
    names.push(name);
  }
  return names;
}

/** The counted names, most counted first (ties in the order first counted), at most {@link MAX_CODE_NAMES}. */
function rankedNames(counts: ReadonlyMap<string, number>): string[] {
  const names = [...counts.keys()];
  // `sort` is stable, so ties keep their order; skipped when the counts already descend (most
  // names of a read are used once), since a sort with a comparator costs more than the scan.
  if (!descending(counts.values())) names.sort((left, right) => counts.get(right)! - counts.get(left)!);
  return names.length > MAX_CODE_NAMES ? names.slice(0, MAX_CODE_NAMES) : names;
}

function descending(values: Iterable<number>): boolean {
  let previous = Number.POSITIVE_INFINITY;
  for (const value of values) {
    if (value > previous) return false;
    previous = value;
  }
  return true;
}
