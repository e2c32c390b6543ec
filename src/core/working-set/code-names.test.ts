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
});
