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

describe('resolveSettings: the default files-back budget', () => {
  it.each([
    // A twelfth of the usable window (the window less the 8,192 reserved for the answer) up to
    // 10,000, a twentieth of a larger one...
    { options: { contextWindow: 200_000 }, expected: 10_000 },
    { options: { contextWindow: 1_000_000 }, expected: 49_590 },
    // ...or of the window the hard threshold implies (80,000 / 0.85) without one...
    { options: {}, expected: 7843 },
    // ...and never under 2,000 tokens, where a small window leaves a twelfth too little.
    { options: { thresholds: { mid: 8000, hard: 16_000 } }, expected: 2000 },
    { options: { contextWindow: 32_000 }, expected: 2000 },
  ])('is $expected for $options', ({ options, expected }) => {
    expect(resolveSettings(options).hard.filesBack.maxTokens).toBe(expected);
  });

  it.each([
    // The working set: a fortieth of the usable window, at least 1,200 tokens.
    { options: { contextWindow: 200_000 }, expected: 4795 },
    { options: {}, expected: 2352 },
    { options: { thresholds: { mid: 8000, hard: 16_000 } }, expected: 1200 },
    // Thresholds well under the window size it by the hard threshold: it goes out beside the kept turn.
    { options: { contextWindow: 200_000, thresholds: { mid: 60_000, hard: 100_000 } }, expected: 2941 },
  ])('the working set takes $expected for $options', ({ options, expected }) => {
    expect(resolveSettings(options).hard.workingSetTokens).toBe(expected);
  });

  it.each([
    // The ledger: a fortieth of the same room once that is over 2,600 tokens.
    { options: { contextWindow: 200_000 }, expected: 4795 },
    { options: {}, expected: 2600 },
    { options: { thresholds: { mid: 8000, hard: 16_000 } }, expected: 2600 },
    { options: { contextWindow: 1_000_000, hard: { ledgerTokens: 900 } }, expected: 900 },
  ])('the ledger takes $expected for $options', ({ options, expected }) => {
    expect(resolveSettings(options).hard.ledgerTokens).toBe(expected);
  });

  it('gives way to an explicit maxTokens', () => {
    const settings = resolveSettings({ contextWindow: 200_000, hard: { filesBack: { maxTokens: 300 } } });
    expect(settings.hard.filesBack).toEqual({ maxFiles: 5, maxTokens: 300 });
  });
});

describe('resolveSettings: what micro and mid keep whole', () => {
  it.each([
    // Micro's three turns; mid's results one per 10,000 tokens of a known window...
    { options: { contextWindow: 200_000 }, keepTurns: 3, keepToolResults: 19 },
    { options: { contextWindow: 1_000_000 }, keepTurns: 3, keepToolResults: 99 },
    // ...the seed's five without one (thresholds set out of reach change nothing)...
    { options: {}, keepTurns: 3, keepToolResults: 5 },
    { options: { thresholds: { mid: 1_000_000, hard: 2_000_000 } }, keepTurns: 3, keepToolResults: 5 },
    // ...and never fewer than the seed's five.
    { options: { thresholds: { mid: 8000, hard: 16_000 } }, keepTurns: 3, keepToolResults: 5 },
    { options: { contextWindow: 32_000 }, keepTurns: 3, keepToolResults: 5 },
  ])('$keepTurns turns and $keepToolResults results for $options', ({ options, ...expected }) => {
    const settings = resolveSettings(options);
    expect({ keepTurns: settings.micro.keepTurns, keepToolResults: settings.mid.keepToolResults }).toEqual(
      expected,
    );
  });

  it('give way to explicit counts', () => {
    const settings = resolveSettings({
      contextWindow: 200_000,
      micro: { keepTurns: 2 },
      mid: { keepToolResults: 1 },
    });
    expect([settings.micro.keepTurns, settings.mid.keepToolResults]).toEqual([2, 1]);
  });
});
