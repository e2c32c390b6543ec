import { describe, expect, it } from 'vitest';
import { lexerOutline } from './lexer-outline.js';
import { outlineFile } from './outline-file.js';

/**
 * How many characters `run` reads through `for…of` over a string, `charCodeAt` or a trim, the ways
 * the lexer walks a line: a count of its work that does not depend on the machine's speed.
 */
function charactersRead(run: () => void): number {
  const prototype = String.prototype;
  const { charCodeAt, trim, trimStart } = prototype;
  const iterator = prototype[Symbol.iterator];
  let read = 0;
  prototype.charCodeAt = function (this: string, index: number) {
    read++;
    return charCodeAt.call(this, index);
  };
  const reading = <T>(method: (this: string) => T) =>
    function (this: string): T {
      read += this.length;
      return method.call(this);
    };
  prototype[Symbol.iterator] = reading(iterator);
  prototype.trim = reading(trim);
  prototype.trimStart = reading(trimStart);
  try {
    run();
  } finally {
    Object.assign(prototype, { charCodeAt, trim, trimStart, [Symbol.iterator]: iterator });
  }
  return read;
}

describe('the lexer outline on many definitions', () => {
  // Each definition's end is looked for over up to 4,000 lines: read again for each definition,
  // 20,000 lines of `function f() {` cost 14 s, 80,000 (1.2 MB) 68 s.
  it.each([
    ['unclosed functions', 'typescript', 'function f() {\n'.repeat(5000)],
    ['nested functions', 'typescript', `${'function f() {\n'.repeat(2500)}${'}\n'.repeat(2500)}`],
    [
      'nested Python functions',
      'python',
      Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}def f():`).join('\n'),
    ],
    ['unclosed constants', 'c', '#define X (\n'.repeat(5000)],
    ['Kotlin functions without a body', 'kotlin', 'fun f(\n'.repeat(5000)],
  ] as const)('reads each character of %s a few times, not once per definition', (_, language, text) => {
    let definitions = 0;
    const read = charactersRead(() => {
      definitions = lexerOutline(language, text).length;
    });
    expect(definitions).toBeGreaterThanOrEqual(2000);
    // Each line's brackets, its indentation and a definition's signature: three reads at most.
    expect(read).toBeLessThanOrEqual(3 * text.length);
  });

  it('stops at the first `limit` definitions, as outlineFile keeps them', () => {
    const text = 'function f() {\n'.repeat(5000);
    const all = lexerOutline('typescript', text);
    expect(lexerOutline('typescript', text, 400)).toEqual(all.slice(0, 400));
    expect(outlineFile('src/f.ts', text, undefined)).toEqual(all.slice(0, 400));
    expect(charactersRead(() => outlineFile('src/f.ts', text, undefined))).toBeLessThanOrEqual(
      2 * text.length,
    );
  });
});

describe('the lexer patterns on long runs of blanks', () => {
  // Patterns where two parts take the same blanks backtrack over every way to share them: in C,
  // a line of `a  a  a …` took 2 s at 24 words and 16 times longer for each 4 more (exponential);
  // in Java and Rust a line of 1,000 blanks after `public` or `impl` took a second (cubic). These
  // sizes would run for days before the fix.
  it.each([
    ['c', `${'word  '.repeat(60)}x;`],
    ['cpp', `  ${'word \t'.repeat(60)}x;`],
    ['java', `class A {\n${`    public ${' '.repeat(980)}\n`.repeat(200)}}`],
    ['java', `class A {\n${`    static final int${' '.repeat(980)}\n`.repeat(200)}}`],
    ['rust', `${`impl${' '.repeat(990)}\n`.repeat(200)}fn f() {}`],
  ] as const)('outlines %s with such lines in one pass of each', (language, text) => {
    const names = lexerOutline(language, text).map((definition) => definition.name);
    expect(names).toEqual(language === 'java' ? ['A'] : language === 'rust' ? ['f'] : []);
  });

  it('still reads what those patterns are for', () => {
    const c = 'static unsigned  long *\tcount_lines(const char *text) {\n  return 0;\n}\n';
    expect(lexerOutline('c', c)).toMatchObject([{ name: 'count_lines', line: 1, endLine: 3 }]);
    const java =
      'class A {\n    public static Map<String, List<Integer>> group(int a) {\n    }\n    private static final Map<String, Integer> LIMITS = Map.of();\n}\n';
    expect(lexerOutline('java', java).map((definition) => definition.name)).toEqual(['A', 'group', 'LIMITS']);
    const rust = 'impl<T: Clone> From<Vec<T>> for Stack<T> {\n    fn from(v: Vec<T>) -> Self {}\n}\n';
    expect(lexerOutline('rust', rust).map((definition) => definition.name)).toEqual(['Stack', 'from']);
  });
});
