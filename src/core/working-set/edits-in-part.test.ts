import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { call, numbered, record } from './__fixtures__/tool-calls.js';
import { renderWorkingSet } from './render-working-set.js';

const counter = createHeuristicCounter();

// A file read in part: its whole text is unknown, so an edit is merged over the outline it gave.
describe('an edit of a file read in part', () => {
  it.each([
    [
      'deleted',
      { old_string: 'func truncate(s string, n int) string {\n\treturn s[:n]\n}\n', new_string: '' },
    ],
    ['renamed by a replace_all', { old_string: 'truncate(', new_string: 'text.Cut(', replace_all: true }],
  ])('drops a definition it %s', (_name, change) => {
    const file_path = '/repo/explain.go';
    const text = 'func truncate(s string, n int) string {\n\treturn s[:n]\n}\n\nfunc keep() {\n}';
    const part = call('Read', { file_path, offset: 100, limit: 7 }, numbered(text, 100));
    const cut = call(
      'Edit',
      { file_path, ...change },
      `The file ${file_path} has been updated successfully.`,
    );
    const names = (messages: Message[]) =>
      record(messages).workingSet.state.files[0]!.definitions.map((definition) => definition.name);
    expect(names(part)).toEqual(['truncate', 'keep']);
    expect(names([...part, ...cut])).toEqual(['keep']);
  });

  it('shows an edit that only removed text by what it removed, not as an empty "now:"', () => {
    const file_path = '/repo/explain.go';
    const text = '// truncate cuts s.\nfunc truncate(s string, n int) string {\n\treturn s[:n]\n}';
    const part = call('Read', { file_path, offset: 100, limit: 4 }, numbered(text, 100));
    const cut = call(
      'Edit',
      { file_path, old_string: text, new_string: '' },
      `The file ${file_path} has been updated successfully.`,
    );
    const { state } = record([...part, ...cut]).workingSet;
    const shown = renderWorkingSet(state, { maxTokens: 400, counter })!.text;
    expect(shown).toContain('Edit t2, removed:\n    // truncate cuts s.');
    expect(shown).not.toContain('now:');
  });

  it('rewrites the first line of a definition it changed in place', () => {
    const file_path = '/repo/explain.go';
    const part = call('Read', { file_path, offset: 10, limit: 2 }, numbered('func keep(a int) {\n}', 10));
    const widen = call(
      'Edit',
      { file_path, old_string: 'keep(a int)', new_string: 'keep(a, b int)' },
      `The file ${file_path} has been updated successfully.`,
    );
    const [definition] = record([...part, ...widen]).workingSet.state.files[0]!.definitions;
    expect(definition).toMatchObject({ name: 'keep', signature: 'func keep(a, b int) {' });
  });

  describe('above the part read, adding lines', () => {
    const file_path = '/repo/explain.go';
    const text = 'func truncate(s string, n int) string {\n\treturn s[:n]\n}\n\nfunc keep() {\n}';
    const part = call('Read', { file_path, offset: 100, limit: 6 }, numbered(text, 100));
    const imports = { file_path, old_string: 'import "fmt"', new_string: 'import (\n\t"fmt"\n\t"os"\n)' };
    const lines = (messages: Message[]) =>
      record(messages).workingSet.state.files[0]!.definitions.map((definition) => [
        definition.name,
        definition.line,
      ]);

    it('moves the outline by the lines it added, where it is known', () => {
      const snippet = `The file ${file_path} has been updated.\n${numbered('import (\n\t"fmt"\n\t"os"\n)', 3)}`;
      expect(lines([...part, ...call('Edit', imports, snippet)])).toEqual([
        ['truncate', 103],
        ['keep', 107],
      ]);
    });

    it('shows no line numbers it cannot stand behind, where it is not known', () => {
      const edited = [
        ...part,
        ...call('Edit', imports, `The file ${file_path} has been updated successfully.`),
      ];
      expect(lines(edited)).toEqual([
        ['truncate', 0],
        ['keep', 0],
      ]);
      const shown = renderWorkingSet(record(edited).workingSet.state, { maxTokens: 400, counter })!.text;
      expect(shown).not.toMatch(/\b10\d: func/);
    });
  });

  it('drops from `uses:` a name a replace_all renamed everywhere', () => {
    const file_path = '/repo/explain.go';
    const part = call(
      'Read',
      { file_path, offset: 10, limit: 2 },
      numbered('func keep(a int) {\n\treturn oldCut(a)\n}', 10),
    );
    const rename = call(
      'Edit',
      { file_path, old_string: 'oldCut(', new_string: 'text.Cut(', replace_all: true },
      `The file ${file_path} has been updated successfully.`,
    );
    const names = (messages: Message[]) => record(messages).workingSet.state.files[0]!.names;
    expect(names(part)).toContain('oldCut');
    expect(names([...part, ...rename])).not.toContain('oldCut');
    expect(names([...part, ...rename])).toContain('Cut');
  });
});
