import { describe, expect, it } from 'vitest';
import { groundTruthBeside } from './ground-truth.js';

const record = [
  '<session_ledger>',
  '## Commands (exit status: first error line)',
  '- npm test -- parser → Exit code 1 — FAIL src/parser.test.ts',
  '- npm run lint -- --max-warnings 0 src/parser.ts src/lexer.ts',
  '- git diff',
  '</session_ledger>',
  '<working_set>',
  '## parser.ts (edited t4)',
  '- * 12: func parseHeader(line string) (Header, error) {',
  'Edit t4 at :12 (parseHeader), now:',
  '    return header, nil',
  '</working_set>',
].join('\n');

describe('groundTruthBeside', () => {
  it('notes the runs of lines an earlier summary shows as they are, under their headings', () => {
    const [test, lint] = record.split('\n').slice(2, 4);
    const earlier = [
      `<context_summary>\n…\n</context_summary>\n<session_ledger>\n## Commands\n${test}\n${lint}\n</session_ledger>`,
    ];
    expect(groundTruthBeside(record, earlier)).toBe(
      record.replace(`${test}\n${lint}`, '[2 lines as in the earlier summary above]'),
    );
  });

  it('leaves the record whole when no earlier summary shows its lines', () => {
    expect(groundTruthBeside(record, [])).toBe(record);
    expect(groundTruthBeside(record, ['<context_summary>\n- other\n</context_summary>'])).toBe(record);
  });

  it('keeps a line that changed since (a command that failed since, a definition that moved)', () => {
    const earlier = [
      '- npm test -- parser → Exit code 0\n- * 10: func parseHeader(line string) (Header, error) {',
    ];
    expect(groundTruthBeside(record, earlier)).toBe(record);
  });

  it('notes a task quoted whole, whatever its lines hold, and keeps short runs', () => {
    const task = [
      '- t1: <pr_description>',
      'Dynamically adding an xfail marker no longer ignores the failure.',
      '## Description',
      'With pytest 5.x, request.node.add_marker(mark) treated the test as xfail; 6.0 raises.',
    ];
    const ledger = ['## Messages the user typed (verbatim)', ...task, '- t9: ok'].join('\n');
    expect(groundTruthBeside(ledger, [task.join('\n')])).toBe(
      [
        '## Messages the user typed (verbatim)',
        '[2 lines as in the earlier summary above]',
        '## Description',
        '[1 line as in the earlier summary above]',
        '- t9: ok',
      ].join('\n'),
    );
  });
});
