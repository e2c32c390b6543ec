import { describe, expect, it } from 'vitest';
import type { Message, ToolResultBlock } from '../model/messages.js';
import { planMicro } from './micro.js';
import { contextFor } from './planner.test-utils.js';

const body = (label: string) => Array.from({ length: 40 }, (_, line) => `${label} line ${line}`).join('\n');

function session(calls: Array<[name: string, input: Record<string, unknown>, output: string]>): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'Go.' }];
  calls.forEach(([name, input, output], index) => {
    const id = `c${index + 1}`;
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id, name, input }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] });
  });
  return messages;
}

const results = (messages: readonly Message[]) =>
  messages.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content
          .filter((block) => block.type === 'tool_result')
          .map((block) => (block as ToolResultBlock).content),
  );

// keepTurns is large: nothing is old enough to mask by age, only staleness can replace a result.
const settings = {
  keepTurns: 50,
  cacheAware: false,
  clearAtLeast: 0,
  supersede: true,
  keepReads: { turns: 0, maxTokens: 0 },
};

describe('supersede before masking', () => {
  it.each([
    [
      'a file read again',
      session([
        ['Read', { file_path: 'src/a.ts' }, body('old a')],
        ['Read', { file_path: 'src/b.ts' }, body('b')],
        ['Read', { file_path: 'src/a.ts' }, body('new a')],
      ]),
      /^\[Previous: used Read\(src\/a.ts\) → superseded by the newer copy in c3; recall r\d+\]$/,
    ],
    [
      'a file read and then rewritten whole',
      session([
        ['Read', { file_path: 'src/a.ts' }, body('old a')],
        ['Write', { file_path: 'src/a.ts', content: 'new' }, 'File written'],
        ['Read', { file_path: 'src/b.ts' }, body('b')],
      ]),
      /^\[Previous: used Read\(src\/a.ts\) → superseded by the newer copy in c2; recall r\d+\]$/,
    ],
    [
      'the same part of a file read again',
      session([
        ['Read', { file_path: 'src/a.ts', offset: 100, limit: 50 }, body('old a')],
        ['Read', { file_path: 'src/b.ts' }, body('b')],
        ['Read', { file_path: 'src/a.ts', offset: 100, limit: 50 }, body('new a')],
      ]),
      /^\[Previous: used Read\(src\/a.ts\) → superseded by the newer copy in c3; recall r\d+\]$/,
    ],
    [
      'a part of a file, then the whole file',
      session([
        ['Read', { file_path: 'src/a.ts', offset: 100, limit: 50 }, body('old a')],
        ['Read', { file_path: 'src/b.ts' }, body('b')],
        ['Read', { file_path: 'src/a.ts' }, body('new a')],
      ]),
      /^\[Previous: used Read\(src\/a.ts\) → superseded by the newer copy in c3; recall r\d+\]$/,
    ],
    [
      'the same command with identical output',
      session([
        ['Bash', { command: 'git status' }, body('status')],
        ['Read', { file_path: 'src/b.ts' }, body('b')],
        ['Bash', { command: 'git status' }, body('status')],
      ]),
      /^\[Previous: used Bash\(git status\) → superseded by the newer copy in c3; recall r\d+\]$/,
    ],
    [
      'a task list listed again (Claude Code TaskList)',
      session([
        ['TaskList', {}, `#1 [pending] Write part files\n${body('tasks')}`],
        ['Read', { file_path: 'src/b.ts' }, body('b')],
        ['TaskList', {}, `#1 [completed] Write part files\n${body('tasks')}`],
      ]),
      /^\[Previous: used TaskList\(\) → superseded by the newer copy in c3; recall r\d+\]$/,
    ],
  ])('%s: the older copy points at the newer one, the newest stays whole', (_name, messages, placeholder) => {
    const context = contextFor(messages);
    const plan = planMicro(messages, context.index, settings, context);
    const [first, second, third] = results(plan?.messages ?? messages);
    expect(first).toMatch(placeholder);
    expect(second).toBe(results(messages)[1]);
    expect(third).toBe(results(messages)[2]);
    expect(plan?.superseded).toEqual(['c1']);
  });

  it('keeps a read of another part of the file, and the part a whole read came before', () => {
    for (const [first, second] of [
      [
        { offset: 100, limit: 50 },
        { offset: 145, limit: 60 },
      ],
      [{}, { offset: 145, limit: 60 }],
      [
        { start_line: 1, end_line: 80 },
        { start_line: 81, end_line: 160 },
      ],
    ]) {
      const messages = session([
        ['Read', { file_path: 'src/a.ts', ...first }, body('a, first part')],
        ['Read', { file_path: 'src/a.ts', ...second }, body('a, second part')],
      ]);
      const context = contextFor(messages);
      expect(planMicro(messages, context.index, settings, context)).toBeUndefined();
    }
  });

  it('keeps both runs of a command whose output changed, and does nothing when turned off', () => {
    const changed = session([
      ['Bash', { command: 'npm test' }, body('fail')],
      ['Bash', { command: 'npm test' }, body('pass')],
    ]);
    const context = contextFor(changed);
    expect(planMicro(changed, context.index, settings, context)).toBeUndefined();
    const reread = session([
      ['Read', { file_path: 'src/a.ts' }, body('old a')],
      ['Read', { file_path: 'src/a.ts' }, body('new a')],
    ]);
    const off = contextFor(reread);
    expect(planMicro(reread, off.index, { ...settings, supersede: false }, off)).toBeUndefined();
  });
});
