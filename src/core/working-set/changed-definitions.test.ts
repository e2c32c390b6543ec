import { describe, expect, it } from 'vitest';
import { call, numbered, record } from './__fixtures__/tool-calls.js';
import { changedLines } from './changed-definitions.js';

describe('changedLines', () => {
  it.each([
    ['a\nb\nc', 'a\nB\nc', { skip: 1, count: 1 }],
    ['a\nc', 'a\nb\nc', { skip: 1, count: 1 }],
    ['a\nb\nc', 'a\nc', { skip: 1, count: 0 }],
    ['', 'a\nb', { skip: 0, count: 2 }],
    ['x', 'y', { skip: 0, count: 1 }],
    ['a\na', 'a\na\na', { skip: 2, count: 1 }],
  ])('of %j → %j', (oldText, newText, lines) => {
    expect(changedLines({ oldText, newText })).toEqual(lines);
  });
});

describe('the definitions an edit changed', () => {
  const path = '/repo/bootstrap_test.go';
  const text = [
    'func TestBatched(t *testing.T) {',
    '\trun(t, 1)',
    '}',
    '',
    'func TestBranchMapping(t *testing.T) {',
    '\trun(t, 3)',
    '}',
  ].join('\n');
  // A patch whose last context line opens the next test: it changed TestBatched only.
  const patch = call(
    'apply_patch',
    {
      input: `*** Begin Patch\n*** Update File: ${path}\n@@\n func TestBatched(t *testing.T) {\n-\trun(t, 1)\n+\trun(t, 2)\n }\n \n func TestBranchMapping(t *testing.T) {\n*** End Patch`,
    },
    'Success.',
  );
  const changed = (messages: ReturnType<typeof call>) =>
    record(messages).workingSet.state.files[0]!.edits.at(-1)!.definitions;

  it('are not those only its context lines are in, the file read whole', () => {
    expect(changed([...call('Read', { file_path: path }, numbered(text)), ...patch])).toEqual([
      'TestBatched',
    ]);
  });

  it('are not those only its context lines are in, the file never read', () => {
    expect(changed(patch)).toEqual(['TestBatched']);
  });

  it('are those around lines it only removed', () => {
    const cut = call(
      'apply_patch',
      {
        input: `*** Begin Patch\n*** Update File: ${path}\n@@\n func TestBranchMapping(t *testing.T) {\n-\trun(t, 3)\n }\n*** End Patch`,
      },
      'Success.',
    );
    expect(changed([...call('Read', { file_path: path }, numbered(text)), ...cut])).toEqual([
      'TestBranchMapping',
    ]);
  });
});
