import { describe, expect, it } from 'vitest';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { headAndTail } from './shorten-result.js';

const counter = createHeuristicCounter();

describe('headAndTail', () => {
  it('keeps the first and last lines within the budget and says how much was cut between them', () => {
    const lines = Array.from({ length: 400 }, (_, index) => `line ${index}: ${'word '.repeat(8)}`);
    const cut = headAndTail(lines.join('\n'), 300, counter)!;
    const kept = cut.split('\n');
    expect(kept[0]).toBe(lines[0]);
    expect(kept.at(-1)).toBe(lines.at(-1));
    const note = kept.find((line) => line.startsWith('[… '))!;
    const headCount = kept.indexOf(note);
    const tailCount = kept.length - headCount - 1;
    expect(note).toBe(
      `[… ${400 - headCount - tailCount} lines (${note.match(/\((.*) tokens\)/)![1]} tokens) cut here …]`,
    );
    // The head gets the larger share; the whole stays near the budget.
    expect(headCount).toBeGreaterThan(tailCount);
    expect(counter.countText(cut)).toBeLessThanOrEqual(330);
  });

  it('cuts one long line by characters, keeping its start and its end', () => {
    const text = `{"data":"${'a1b2c3 '.repeat(2000)}","end":"LAST"}`;
    const cut = headAndTail(text, 200, counter)!;
    expect(cut.startsWith('{"data":"a1b2c3')).toBe(true);
    expect(cut.endsWith('"end":"LAST"}')).toBe(true);
    expect(cut).toMatch(/\n\[… [\d,.k]+ characters cut here …\]\n/);
    expect(counter.countText(cut)).toBeLessThan(260);
  });

  it('cuts no surrogate pair in half where it cuts one long line (a provider refuses half an emoji)', () => {
    const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (const pad of ['', 'x']) {
      const cut = headAndTail(`${pad}${'😀'.repeat(3000)}`, 200, counter)!;
      expect(cut).toMatch(/characters cut here/);
      expect(cut).not.toMatch(loneSurrogate);
    }
  });

  it('leaves a text that fits alone', () => {
    expect(headAndTail('one\ntwo\nthree', 300, counter)).toBeUndefined();
  });
});
