import { describe, expect, it } from 'vitest';
import { withoutRecallIds } from './recall-ids.js';

describe('withoutRecallIds', () => {
  it.each([
    [
      '[Previous: used read_file(a.ts) → 412 lines, 3.1k tokens; recall r17]',
      '[Previous: used read_file(a.ts) → 412 lines, 3.1k tokens]',
    ],
    ['text […shortened; 2k tokens in full; recall r3]', 'text […shortened; 2k tokens in full]'],
    ['[elided: 1.2k tokens; recall r4]', '[elided: 1.2k tokens]'],
    ['<context_summary recall="r5">\nsummary', '<context_summary>\nsummary'],
    [
      '- Continue the task from the current state; recall archived results by id when needed.',
      '- Continue the task from the current state.',
    ],
    ['the lint run (recall r9) failed', 'the lint run failed'],
  ])('%s', (text, expected) => {
    expect(JSON.parse(withoutRecallIds(JSON.stringify({ text })))).toEqual({ text: expected });
  });

  it('leaves text without recall ids as the same string', () => {
    const json = JSON.stringify({ text: 'nothing to recall here' });
    expect(withoutRecallIds(json)).toBe(json);
  });
});
