import { describe, expect, it } from 'vitest';
import { codeNames, MAX_CODE_NAMES } from './code-names.js';

describe('codeNames', () => {
  it.each([
    [
      'calls, most frequent first',
      'fmt.Errorf("a")\nfilepath.Join(a, b)\nfmt.Errorf("b")',
      ['Errorf', 'Join'],
    ],
    [
      'camelCase and snake_case names, called or not',
      'x := sessionID + MAX_TOKENS',
      ['sessionID', 'MAX_TOKENS'],
    ],
    ['not keywords, builtins or plain words', 'if (ok) { return len(items) } // some prose', []],
    ['not names shorter than three letters', 'f(x); go(y)', []],
  ])('%s', (_, text, expected) => {
    expect(codeNames(text, new Set())).toEqual(expected);
  });

  it("leaves out the file's own definitions and keeps earlier names after the new ones", () => {
    expect(
      codeNames('handleStart(); parseInput()', new Set(['handleStart']), ['readConfig', 'parseInput']),
    ).toEqual(['parseInput', 'readConfig']);
  });

  it('keeps at most the bound, on a huge or minified text without a throw', () => {
    const text = Array.from({ length: 500 }, (_, index) => `call${index}();`).join('');
    expect(codeNames(text, new Set())).toHaveLength(MAX_CODE_NAMES);
    expect(codeNames('\u0000\u0001'.repeat(100_000), new Set())).toEqual([]);
  });

  it('finds the same names as the regular-expression rules, on random text', () => {
    const keywords = new Set(['return', 'function', 'this', 'self', 'make']);
    /** The rules as written in the docs: words by regex, then the three tests on each. */
    const reference = (text: string) => {
      const counts = new Map<string, number>();
      for (const match of text.matchAll(/[A-Za-z_$][\w$]*/g)) {
        const name = match[0];
        const called = text[match.index + name.length] === '(';
        const named =
          /[A-Za-z0-9]_[A-Za-z0-9]/.test(name) || (/[a-z]/.test(name) && /[A-Z]/.test(name.slice(1)));
        if (name.length >= 3 && !keywords.has(name) && (named || called))
          counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      return [...counts]
        .sort((left, right) => right[1] - left[1])
        .map(([name]) => name)
        .slice(0, MAX_CODE_NAMES);
    };
    const alphabet = 'aZbY_9$( .\n'.split('').concat(['return', 'this', 'make', 'A_b', 'xY']);
    let seed = 11;
    for (let run = 0; run < 300; run++) {
      let text = '';
      for (let index = 0; index < 60; index++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        text += alphabet[seed % alphabet.length];
      }
      expect(codeNames(text, new Set()), JSON.stringify(text)).toEqual(reference(text));
    }
  });
});
