import { describe, expect, it } from 'vitest';
import { chargedMemoryBytes } from './memory-reserve.js';

const MiB = 1024 * 1024;

describe('chargedMemoryBytes', () => {
  it.each([
    [512, 512],
    [288, 288],
    [256, 240],
    [128, 48],
    [100, 25],
    [32, 8],
  ])('charges the entries of a --max-memory of %i MiB against %i MiB', (budget, charged) => {
    expect(chargedMemoryBytes(budget * MiB)).toBe(charged * MiB);
  });
});
