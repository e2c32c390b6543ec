import { describe, expect, it } from 'vitest';
import { copyData } from './copy-data.js';

describe('copyData', () => {
  it('copies arrays and objects, so a change to the original does not reach the copy', () => {
    const original = { role: 'user', content: [{ type: 'text', text: 'hi' }], extra: undefined };
    const copy = copyData(original);
    expect(copy).toEqual(original);
    expect('extra' in copy).toBe(true);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(original));
    original.content[0]!.text = 'changed';
    original.content.push({ type: 'text', text: 'more' });
    expect(copy.content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('keeps a `__proto__` key as its own field, at any depth, and leaves prototypes alone', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": [{"__proto__": 1}]}');
    let deep: unknown = parsed;
    for (let level = 0; level < 200; level++) deep = { next: deep };
    for (const copy of [copyData(parsed), copyData(deep)]) {
      expect(JSON.stringify(copy)).toContain('"__proto__":{"polluted":true}');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    expect(Object.getPrototypeOf(copyData(parsed))).toBe(Object.prototype);
  });

  it('copies other objects and deep nesting with structuredClone', () => {
    const date = new Date(0);
    const copy = copyData({ at: date, bytes: new Uint8Array([1, 2]) });
    expect(copy.at).not.toBe(date);
    expect(copy.at.getTime()).toBe(0);
    expect(copy.bytes).toEqual(new Uint8Array([1, 2]));
    let nested: unknown = 'leaf';
    for (let level = 0; level < 20_000; level++) nested = [nested];
    let copied = copyData(nested);
    let depth = 0;
    while (Array.isArray(copied)) [copied, depth] = [copied[0], depth + 1];
    expect([copied, depth]).toEqual(['leaf', 20_000]);
  });
});
