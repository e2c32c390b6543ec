import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHeuristicCounter, estimateTokensByPattern } from './heuristic-counter.js';

const counter = createHeuristicCounter();

describe('createHeuristicCounter', () => {
  it('is named heuristic', () => {
    expect(counter.name).toBe('heuristic');
  });

  it.each([
    ['empty text', '', 0],
    ['one short word', 'hello', 1],
    ['a word after a space', ' hello', 1],
    ['one to three digits', '123', 1],
    ['digits in groups of three', '1234567', 3],
    ['a newline', '\n', 1],
    ['a punctuation pair', '("', 1],
  ])('%s: %j is %i tokens', (_case, text, expected) => {
    expect(counter.countText(text)).toBe(expected);
  });

  it.each([
    ['a long identifier costs more than a short one', 'x', 'internationalizationConfiguration'],
    ['all-capitals words split more than lower-case ones', 'thought process', 'THOUGHT PROCESS'],
    ['indentation costs tokens', 'return x', '\n        return x'],
    ['JSON punctuation costs tokens', 'name Ada', '{"name": "Ada"}'],
  ])('%s', (_case, cheaper, dearer) => {
    expect(counter.countText(cheaper)).toBeLessThan(counter.countText(dearer));
  });

  it('prices code and JSON above characters / 4 and prose below it, as BPE does', () => {
    const json = JSON.stringify({ a: [1, 2, 3], b: { c: 'd' }, e: null });
    const prose = 'The conversation passes the threshold and the oldest tool results are archived first.';
    expect(counter.countText(json)).toBeGreaterThan(json.length / 4);
    expect(counter.countText(prose)).toBeLessThan(prose.length / 4);
  });

  it('never goes down when text is appended, and roughly adds up over concatenation', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }), (left, right) => {
        const whole = counter.countText(`${left}\n${right}`);
        expect(whole).toBeGreaterThanOrEqual(counter.countText(left));
        expect(Math.abs(whole - counter.countText(left) - counter.countText(right))).toBeLessThanOrEqual(3);
      }),
      { seed: 42, numRuns: 500 },
    );
  });

  it('counts megabytes of letters without punctuation (5M CJK characters) at their per-letter cost', () => {
    expect(counter.countText('中'.repeat(5_000_000))).toBe(4_250_000);
    // A run read in windows costs what one read whole does.
    expect(counter.countText('中'.repeat(10_000))).toBe(8_500);
  });

  it('gives exactly the count of the pre-tokenizer pattern it hand-codes for speed, on any text', () => {
    const pieces = fc.constantFrom(
      ...[
        'a',
        'Z',
        'word',
        'Camel',
        'CAPS',
        "'s",
        "'LL",
        "'re",
        '7',
        '1234',
        ' ',
        '  ',
        '\t',
        '\n',
        '\r\n',
        '/',
        '(',
        '"',
        '===',
      ],
      ...['é', 'ß', 'Ж', '日本', '—', '’', '\u00a0', '²', '😀', '\u0301', '\ud800'],
    );
    const mixed = fc.oneof(
      fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join('')),
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.string({ maxLength: 80 }),
    );
    fc.assert(
      fc.property(mixed, (text) => {
        expect(counter.countText(text)).toBe(estimateTokensByPattern(text));
      }),
      { seed: 1, numRuns: 5000 },
    );
  });
});
