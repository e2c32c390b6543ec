import { describe, expect, it } from 'vitest';
import { bodyWithoutRecallIds, withoutRecallIds } from './recall-ids.js';

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
      '<context_summary recall="r5">\n- Continue the task from the current state; recall archived results by id when needed.',
      '<context_summary>\n- Continue the task from the current state.',
    ],
    [
      '<context_summary recall="r5">\nthe lint run (recall r9) failed',
      '<context_summary>\nthe lint run failed',
    ],
  ])('the core wrote %s', (text, expected) => {
    expect(JSON.parse(withoutRecallIds(JSON.stringify({ text })))).toEqual({ text: expected });
  });

  it.each([
    'please recall r12 and compare it with the new output',
    'the lint run (recall r9) failed',
    '[see the earlier notes; recall r3]',
  ])('leaves what the user wrote as it is: %s', (text) => {
    const body = { messages: [{ role: 'user', content: [{ type: 'text', text }] }] };
    expect(bodyWithoutRecallIds(body)).toBe(body);
    expect(withoutRecallIds(JSON.stringify(body))).toBe(JSON.stringify(body));
  });

  it('takes the ids out of a placeholder and keeps the user text beside it', () => {
    const body = {
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: '[Previous: used ls(.) → 3 lines, 40 tokens; recall r2]',
            },
            { type: 'text', text: 'now recall r2 please' },
          ],
        },
      ],
    };
    expect(bodyWithoutRecallIds(body).messages[0]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: '[Previous: used ls(.) → 3 lines, 40 tokens]' },
      { type: 'text', text: 'now recall r2 please' },
    ]);
  });

  it('leaves text without recall ids as the same string', () => {
    const json = JSON.stringify({ text: 'nothing to recall here' });
    expect(withoutRecallIds(json)).toBe(json);
  });
});
