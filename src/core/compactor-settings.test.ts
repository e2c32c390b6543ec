import { describe, expect, it } from 'vitest';
import { resolveSettings } from './compactor-settings.js';

describe('resolveSettings: the default cache-aware batch', () => {
  it.each([
    // 5/8 of mid, measured on the shared runs (CHANGELOG.md, 2026-12-01).
    { mid: 8000, hard: 16_000, expected: 5000 },
    { mid: 14_000, hard: 32_000, expected: 8750 },
    { mid: 10_001, hard: 20_000, expected: 6250 },
    // Capped at 20,000 from a mid of 32,000 on, so the seed's thresholds keep a 20,000 batch.
    { mid: 32_000, hard: 40_000, expected: 20_000 },
    { mid: 50_000, hard: 80_000, expected: 20_000 },
  ])('is $expected at mid $mid', ({ mid, hard, expected }) => {
    expect(resolveSettings({ thresholds: { mid, hard } }).micro.clearAtLeast).toBe(expected);
  });

  it('gives way to an explicit clearAtLeast', () => {
    const settings = resolveSettings({
      thresholds: { mid: 8000, hard: 16_000 },
      micro: { clearAtLeast: 123 },
    });
    expect(settings.micro.clearAtLeast).toBe(123);
  });
});
