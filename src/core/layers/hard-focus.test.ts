import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { focusNames, focusRanges } from './hard-focus.js';

const source = [
  '// parseHeader reads the header.',
  'export function parseHeader(input: string) {',
  '  return input;',
  '}',
  '',
  'export function unrelated() {',
  '  return 1;',
  '}',
  '',
  'export function parseBody(input: string) {',
  '  return input;',
  '}',
].join('\n');

describe('focusNames', () => {
  it('weighs the names of the latest request and turns, the recent ones more', () => {
    const history: Message[] = [
      { role: 'user', content: 'fix parseHeader' },
      { role: 'assistant', content: [{ type: 'text', text: 'looking at parseBody' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'Grep', input: { pattern: 'parseHeader' } }],
      },
    ];
    const focus = focusNames(history);
    expect(focus.get('parseHeader')).toBe(2);
    expect(focus.get('parseBody')).toBe(0.5);
    expect(focus.has('unrelated')).toBe(false);
  });
});

describe('focusRanges', () => {
  it('gives the named definitions from their doc comment, the weightiest last', () => {
    const focus = new Map([
      ['parseHeader', 2],
      ['parseBody', 0.5],
    ]);
    expect(focusRanges('src/parse.ts', source, focus)).toEqual([
      [5, 11],
      [0, 3],
    ]);
    expect(focusRanges('notes.txt', source, focus)).toEqual([]);
  });
});
