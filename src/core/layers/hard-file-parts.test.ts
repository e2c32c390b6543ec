import { describe, expect, it } from 'vitest';
import { editParts, withPart } from './hard-file-parts.js';

describe('withPart', () => {
  it('replaces the parts a new read overlaps and keeps the latest three', () => {
    const parts = [
      { firstLine: 1, text: 'a\nb' },
      { firstLine: 10, text: 'j\nk' },
    ];
    expect(withPart(parts, { firstLine: 2, text: 'B\nc' })).toEqual([
      { firstLine: 10, text: 'j\nk' },
      { firstLine: 2, text: 'B\nc' },
    ]);
    const many = [1, 10, 20, 30].reduce(
      (all, firstLine) => withPart(all, { firstLine, text: 'x' }),
      [] as ReturnType<typeof withPart>,
    );
    expect(many.map((part) => part.firstLine)).toEqual([10, 20, 30]);
  });
});

describe('editParts', () => {
  it('edits the part that holds the old text and moves the parts below it', () => {
    const parts = [
      { firstLine: 20, text: 'later' },
      { firstLine: 1, text: 'one\ntwo' },
    ];
    expect(editParts(parts, 'two', 'two\nthree')).toEqual([
      { firstLine: 21, text: 'later' },
      { firstLine: 1, text: 'one\ntwo\nthree' },
    ]);
    expect(editParts(parts, 'missing', 'x')).toBeUndefined();
  });
});
