import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTiktokenCounter } from './index.js';
import { setTokenizerPackage } from './load-tokenizer.js';
import { MAX_RUN_CHARS } from './long-runs.js';

/** The module the counter loads its BPE from (the one `require` holds, so a spy on it is seen). */
const o200k: { countTokens: (text: string) => number } = createRequire(import.meta.url)(
  'gpt-tokenizer/encoding/o200k_base',
);

/** The longest run of one kind of character (letters, punctuation, white space) in `text`. */
function longestRun(text: string): number {
  const runs = text.match(/[\p{L}\p{M}]+|[^\s\p{L}\p{N}]+|\s+/gu) ?? [];
  return Math.max(0, ...runs.map((run) => run.length));
}

/** Letters from a fixed scramble: no run of them repeats, so gpt-tokenizer's cache cannot help. */
const letters = (length: number, from = 0x61, span = 26) =>
  Array.from({ length }, (_, index) => String.fromCodePoint(from + ((index * 7919) % span))).join('');

afterEach(() => {
  vi.restoreAllMocks();
  setTokenizerPackage('gpt-tokenizer');
});

/** A counter whose BPE calls are recorded (the tables loaded anew, so the spy is what it calls). */
function spiedCounter() {
  const bpe = vi.spyOn(o200k, 'countTokens');
  setTokenizerPackage('gpt-tokenizer');
  return { counter: createTiktokenCounter(), bpe };
}

describe('createTiktokenCounter on long runs of one kind of character', () => {
  // gpt-tokenizer's BPE is quadratic in a run's length: 80,000 letters took 11 s.
  it.each([
    ['letters', `start ${letters(200_000)} end`],
    ['CJK', letters(50_000, 0x4e00, 2000)],
    ['an astral script', letters(20_000, 0x20000, 500)],
    ['an astral script after digits', `2026 ${letters(20_000, 0x20000, 500)}`],
    ['emoji after letters', `ok${letters(1_000, 0x1f600, 50)}`],
    ['punctuation', `x = ${'=-+*#'.repeat(20_000)};`],
    ['white space', `a${' '.repeat(100_000)}b${'\n'.repeat(100_000)}`],
  ])('never hands the BPE a run of %s longer than the bound', (_, text) => {
    const { counter, bpe } = spiedCounter();
    expect(counter.countText(text)).toBeGreaterThan(0);
    const handed = bpe.mock.calls.map(([piece]) => piece);
    expect(Math.max(...handed.map(longestRun))).toBeLessThanOrEqual(MAX_RUN_CHARS + 1);
    // Every character is counted once, and no surrogate pair is cut in two.
    expect(handed.join('')).toBe(text);
    expect(handed.some((piece) => /^[\udc00-\udfff]|[\ud800-\udbff]$/.test(piece))).toBe(false);
  });

  it('counts a 20 MB run of one letter (a match of it whole overflowed the stack)', () => {
    // 128 `a` are 16 tokens.
    expect(createTiktokenCounter().countText('a'.repeat(20_000_000))).toBe(2_500_000);
  });

  it('counts a text without such a run whole, exactly', () => {
    const { counter, bpe } = spiedCounter();
    const text = `function add(a, b) {\n  return a + b; // ${'word '.repeat(2000)}\n}\n`;
    expect(counter.countText(text)).toBe(o200k.countTokens(text));
    expect(bpe).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['letters', letters(4000)],
    ['CJK', letters(4000, 0x4e00, 2000)],
    ['punctuation', '=-+*#'.repeat(800)],
  ])('counts a run of %s cut in pieces within 1% of the whole run', (_, text) => {
    const whole = o200k.countTokens(text);
    expect(Math.abs(createTiktokenCounter().countText(`(${text})`) - whole) / whole).toBeLessThan(0.01);
  });
});
