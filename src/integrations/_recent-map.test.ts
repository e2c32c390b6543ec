import { describe, expect, it } from 'vitest';
import { RecentMap } from './_recent-map.js';

describe('RecentMap', () => {
  it('drops the least recently used entry past max; get marks use, peek does not', () => {
    const map = new RecentMap<string, number>({ max: 2 });
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([map.peek('a'), map.peek('b'), map.peek('c')]).toEqual([1, undefined, 3]);
    expect(map.peek('a')).toBe(1);
    map.set('d', 4);
    expect([map.peek('a'), map.peek('c'), map.peek('d')]).toEqual([undefined, 3, 4]);
    expect(map.size).toBe(2);
  });

  it('keeps at least one entry', () => {
    const map = new RecentMap<string, number>({ max: 0 });
    map.set('a', 1);
    expect(map.get('a')).toBe(1);
  });
});
