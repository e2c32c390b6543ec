import { describe, expect, it } from 'vitest';
import { sameJson } from './same-json.js';

describe('sameJson', () => {
  it.each([
    ['equal primitives', 1, 1, true],
    ['different primitives', 'a', 'b', false],
    ['null and an object', null, {}, false],
    [
      'equal nested values, keys in another order',
      { a: [1, { b: 'x' }], c: 2 },
      { c: 2, a: [1, { b: 'x' }] },
      true,
    ],
    ['an array that grew', { list: ['a', 'b'] }, { list: ['a', 'b', 'c'] }, false],
    ['a changed item deep inside', { list: [{ n: 1 }] }, { list: [{ n: 2 }] }, false],
    ['an undefined property against a missing one', { a: 1, b: undefined }, { a: 1 }, true],
    ['an extra property', { a: 1 }, { a: 1, b: 2 }, false],
    ['an array against an object', [], {}, false],
  ])('%s', (_name, left, right, expected) => {
    expect(sameJson(left, right)).toBe(expected);
    // The verdict agrees with comparing the serializations (with keys sorted).
    expect(sameJson(left, right)).toBe(sortedJson(left) === sortedJson(right));
  });
});

function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );
}
