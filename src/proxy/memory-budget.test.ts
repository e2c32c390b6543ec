import { describe, expect, it } from 'vitest';
import { MemoryBudget } from './memory-budget.js';

describe('MemoryBudget', () => {
  it('evicts the least recently used entries of any holder once over the budget', () => {
    const budget = new MemoryBudget(100);
    const evicted: string[] = [];
    const charge = (key: string, bytes: number) => budget.charge(key, bytes, () => evicted.push(key));
    charge('compactor:a', 40);
    charge('body:a', 30);
    charge('subscriber:1', 20);
    budget.touch('compactor:a');
    expect(evicted).toEqual([]);
    charge('compactor:b', 40);
    // body:a was the least recently used, then subscriber:1.
    expect(evicted).toEqual(['body:a']);
    expect(budget.used).toBe(100);
    charge('compactor:b', 60);
    expect(evicted).toEqual(['body:a', 'subscriber:1']);
    expect(budget.used).toBe(100);
    expect(budget.evicted).toBe(2);
  });

  it('never evicts the entry being charged, and forgets released entries without evicting them', () => {
    const budget = new MemoryBudget(10);
    const evicted: string[] = [];
    budget.charge('a', 50, () => evicted.push('a'));
    expect(evicted).toEqual([]);
    expect(budget.used).toBe(50);
    budget.release('a');
    expect(budget.used).toBe(0);
    budget.charge('b', 5, () => evicted.push('b'));
    budget.charge('c', 20, () => evicted.push('c'));
    expect(evicted).toEqual(['b']);
    expect(budget.bytesOf('c')).toBe(20);
  });
});

describe('MemoryBudget groups', () => {
  it('never evicts an entry of the session being charged', () => {
    const budget = new MemoryBudget(100);
    const evicted: string[] = [];
    const charge = (key: string, bytes: number, group: string) =>
      budget.charge(key, bytes, () => evicted.push(key), group);
    charge('compactor:a', 60, 'a');
    charge('compactor:b', 30, 'b');
    charge('body:a', 60, 'a');
    expect(evicted).toEqual(['compactor:b']);
  });
});
