import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { samples } from './__fixtures__/samples.js';
import { call, numbered, record } from './__fixtures__/tool-calls.js';
import { renderWorkingSet } from './render-working-set.js';

const counter = createHeuristicCounter();

const go = samples.go;
const path = `/repo/${go.path}`;
const read = call('Read', { file_path: path }, numbered(go.text));
const edit = call(
  'Edit',
  {
    file_path: path,
    old_string: '\treturn &Usage{}, nil',
    new_string: '\tusage := &Usage{}\n\tfor range lines {\n\t\tusage.Input++\n\t}\n\treturn usage, nil',
  },
  `The file ${path} has been updated successfully.`,
);

describe('the working set', () => {
  it('gives a placeholder the outline of a read it recorded, only for the text that read showed', () => {
    const recorder = record(read).workingSet;
    const id = (read[0]!.content as { id: string }[])[0]!.id;
    const shown = { path, firstLine: 1, chars: go.text.length };
    expect(recorder.readOutline(id, shown)?.map((definition) => definition.name)).toEqual(
      expect.arrayContaining(['CalculateTokenUsage']),
    );
    // Another read under the same id (a client that reuses ids) gets nothing: the lexer reads it.
    expect(recorder.readOutline(id, { ...shown, path: '/repo/other.go' })).toBeUndefined();
    expect(recorder.readOutline(id, { ...shown, chars: shown.chars + 1 })).toBeUndefined();
    expect(recorder.readOutline('toolu_unknown', shown)).toBeUndefined();
  });

  it('outlines a file read and places an edit in the definitions it changed', () => {
    const { state } = record([...read, ...edit]).workingSet;
    const [file] = state.files;
    expect(file).toMatchObject({ path, edited: true });
    const changed = file!.definitions.filter((definition) => definition.changedTurn !== undefined);
    expect(changed.map((definition) => definition.name)).toEqual(['CalculateTokenUsage']);
    expect(file!.edits).toEqual([
      expect.objectContaining({
        line: 12,
        definitions: ['CalculateTokenUsage'],
        text: expect.stringContaining('usage.Input++'),
      }),
    ]);
    // The edit moved the lines after it: the outline is the file's text after the edit.
    expect(file!.definitions.find((definition) => definition.name === 'CalculateTokenUsage')?.endLine).toBe(
      17,
    );
  });

  it('takes a relative read and an absolute edit of one file for one file, under its absolute name', () => {
    const relative = call('Bash', { command: `cat ${go.path}` }, go.text);
    const { state } = record([...relative, ...edit]).workingSet;
    expect(state.files.map((file) => [file.path, file.edited])).toEqual([[path, true]]);
    // The edit was placed in the text the relative read showed: its line, not the fragment's.
    expect(state.files[0]!.edits[0]).toMatchObject({ line: 12, definitions: ['CalculateTokenUsage'] });
  });

  it("takes nothing of a file from a read Codex cut, and the file's text from one it did not", () => {
    const cut = `Exit code: 0\nWall time: 0.1 seconds\nTotal output lines: 900\nOutput:\n${go.text.slice(0, 200)}\n…812 tokens truncated…\n${go.text.slice(-200)}`;
    expect(record(call('exec_command', { cmd: `cat ${path}` }, cut)).workingSet.state.files).toEqual([]);
    const whole = `Exit code: 0\nWall time: 0.1 seconds\nOutput:\n${go.text}`;
    const [file] = record(call('exec_command', { cmd: `cat ${path}` }, whole)).workingSet.state.files;
    expect(file?.definitions.map((definition) => definition.name)).toContain('CalculateTokenUsage');
  });

  it("keeps the text of a file's six latest edits: the agent's next edit often matches an earlier one", () => {
    const file = '/repo/steps.py';
    const body = Array.from({ length: 7 }, (_, index) => `def step${index}():\n    return ${index}\n`).join(
      '\n',
    );
    const edits = Array.from({ length: 7 }, (_, index) =>
      call(
        'Edit',
        { file_path: file, old_string: `    return ${index}\n`, new_string: `    return ${index} * 10\n` },
        'updated',
      ),
    ).flat();
    const { state } = record([
      ...call('Write', { file_path: file, content: body }, 'written'),
      ...edits,
    ]).workingSet;
    const texts = state.files[0]!.edits.map((entry) => entry.text.trim());
    expect(texts).toEqual([1, 2, 3, 4, 5, 6].map((index) => `return ${index} * 10`));
  });

  it('records an edit to a file never read from the text the edit wrote', () => {
    const write = call(
      'Edit',
      {
        file_path: '/repo/pkg/new.py',
        old_string: 'pass',
        new_string: 'def retry_later(delay):\n    return delay\n',
      },
      'ok',
    );
    const file = record(write).workingSet.state.files[0]!;
    expect(file.definitions.map((definition) => [definition.name, definition.changedTurn])).toEqual([
      ['retry_later', 1],
    ]);
  });

  it('writes paths whole when they share only the root (no "Paths under /." and no relative-looking path)', () => {
    const state = record([
      ...read,
      ...call('Write', { file_path: '/tmp/check.go', content: 'package main\n' }, 'ok'),
    ]).workingSet.state;
    const { text } = renderWorkingSet(state, { maxTokens: 1000, counter })!;
    expect(text).not.toContain('Paths under');
    expect(text).toContain(`## ${path} (read t1)`);
    expect(text).toContain('## /tmp/check.go (edited t2)');
  });

  it('records where a search found its symbol, and nothing for a failed call', () => {
    const grep = call(
      'Grep',
      { pattern: 'CalculateTokenUsage', output_mode: 'content' },
      'cmd/transcript.go:11:func CalculateTokenUsage(lines []string) (*Usage, error) {\ncmd/hooks.go:40:\tusage, err := CalculateTokenUsage(lines)',
    );
    const shell = call(
      'Bash',
      { command: 'rg -n "staleLock" cmd | head' },
      'cmd/lock.go:12:const staleLock = 30',
    );
    const failed = call('Read', { file_path: '/repo/missing.go' }, 'File does not exist.', true);
    const { state } = record([...grep, ...shell, ...failed]).workingSet;
    expect(state.searches).toEqual([
      {
        pattern: 'CalculateTokenUsage',
        turn: 1,
        hits: ['cmd/transcript.go:11', 'cmd/hooks.go:40'],
        total: 2,
      },
      { pattern: 'staleLock', turn: 2, hits: ['cmd/lock.go:12'], total: 1 },
    ]);
    expect(state.files).toEqual([]);
  });

  it('places the hits of a search of one file, which grep prints without its path', () => {
    const envelope = (output: string) => `<returncode>0</returncode>\n<output>\n${output}\n</output>`;
    const one = call(
      'bash',
      { command: 'grep -n "CONVERT_TZ" django/db/backends/mysql/operations.py 2>/dev/null' },
      envelope("73:        field_name = \"CONVERT_TZ(%s, 'UTC', '%s')\" % (field_name, tzname)"),
    );
    const piped = call(
      'bash',
      { command: 'cat django/db/utils.py | grep -A 2 "def typecast"' },
      envelope('def typecast_timestamp(s):\n    if not s:\n        return None'),
    );
    const tool = call(
      'Grep',
      { pattern: 'staleLock', path: 'cmd/lock.go', '-n': true },
      '12:const staleLock = 30',
    );
    const { state } = record([...one, ...piped, ...tool]).workingSet;
    expect(state.searches).toEqual([
      { pattern: 'CONVERT_TZ', turn: 1, hits: ['django/db/backends/mysql/operations.py:73'], total: 1 },
      // Piped text names no file: its lines matched, which is not "nothing found".
      { pattern: 'def typecast', turn: 2, hits: [], total: 0, lines: 3 },
      { pattern: 'staleLock', turn: 3, hits: ['cmd/lock.go:12'], total: 1 },
    ]);
    const { text } = renderWorkingSet(state, { maxTokens: 1000, counter })!;
    expect(text).toContain('"def typecast" → 3 matching lines');
    expect(text).not.toContain('nothing found');
  });

  it('records a search its tool answered with no match as nothing found, not as a line or a file', () => {
    const grep = call('Grep', { pattern: 'staleLock', path: 'cmd/lock.go' }, 'No matches found');
    const glob = call('Glob', { pattern: '**/helpers*.go' }, 'No files found');
    const paged = call(
      'Grep',
      { pattern: 'sessionIndex', head_limit: 5 },
      'No matches found\n\n[Showing results with pagination = limit: 5, offset: 0]',
    );
    const gemini = call(
      'grep_search',
      { pattern: 'latestDir' },
      'No matches found for pattern "latestDir" in path ".".',
    );
    const { state } = record([...grep, ...glob, ...paged, ...gemini]).workingSet;
    expect(state.searches.map(({ hits, lines }) => [hits, lines ?? 0])).toEqual([
      [[], 0],
      [[], 0],
      [[], 0],
      [[], 0],
    ]);
    const { text } = renderWorkingSet(state, { maxTokens: 1000, counter })!;
    expect(text).toContain('"staleLock" → nothing found');
    expect(text).toContain('"**/helpers*.go" → nothing found');
    expect(text).not.toContain('matching line');
  });

  it('records a file the agent wrote with a shell heredoc as a file it changed, with its definitions', () => {
    const script = [
      'import django',
      'from django.conf import settings',
      '',
      'def reproduce(zone):',
      '    settings.configure(INSTALLED_APPS=["app"], TIME_ZONE=zone)',
      '    return django.setup()',
    ].join('\n');
    const write = call(
      'bash',
      { command: `cat <<'EOF' > reproduce_issue.py\n${script}\nEOF\npython3 reproduce_issue.py` },
      '<returncode>0</returncode>\n<output>\n</output>',
    );
    const appended = call(
      'bash',
      { command: 'cat >> notes.txt <<EOF\nmore\nEOF' },
      '<returncode>0</returncode>',
    );
    const { state } = record([...write, ...appended]).workingSet;
    expect(state.files.map((file) => [file.path, file.edited])).toEqual([['reproduce_issue.py', true]]);
    expect(state.files[0]!.definitions.map((definition) => definition.name)).toContain('reproduce');
    expect(renderWorkingSet(state, { maxTokens: 1000, counter })!.text).toContain('INSTALLED_APPS');
  });

  it('ranks a file the agent still runs over one it wrote later and left', () => {
    const script = (name: string) =>
      call('bash', { command: `cat <<'EOF' > ${name}.py\ndef ${name}_check():\n    return 1\nEOF` }, 'ok');
    const run = call('bash', { command: 'python3 reproduce.py' }, '1');
    const { state } = record([...script('reproduce'), ...script('scratch'), ...run]).workingSet;
    expect(state.files.find((file) => file.path === 'reproduce.py')?.namedTurn).toBe(3);
    const full = renderWorkingSet(state, { maxTokens: 1000, counter })!.text;
    expect(full).toContain('scratch_check');
    const tight = renderWorkingSet(state, { maxTokens: counter.countText(full) / 2, counter })!.text;
    expect(tight).toContain('reproduce_check');
    expect(tight).not.toContain('scratch_check');
  });

  it('counts how often the agent used each name afterwards', () => {
    const talk: Message = {
      role: 'assistant',
      content: 'CalculateTokenUsage double counts; Usage.Add is fine.',
    };
    const { state } = record([...read, talk, ...edit]).workingSet;
    // `Usage` once in the text, twice in the edit's input.
    expect(state.uses).toMatchObject({ CalculateTokenUsage: 1, Usage: 3, Add: 1 });
  });

  it('merges a partial read into what it knew of the file', () => {
    const part = call(
      'Read',
      { file_path: path, offset: 100, limit: 10 },
      numbered('func Later() {\n}', 100),
    );
    const file = record([...read, ...part]).workingSet.state.files[0]!;
    expect(file.definitions.map((definition) => `${definition.name}:${definition.line}`)).toEqual([
      'Usage:3',
      'Add:7',
      'CalculateTokenUsage:11',
      'Later:100',
    ]);
  });

  it('skips binary and minified reads and unknown languages without a throw', () => {
    const binary = call('Read', { file_path: '/repo/a.go' }, `\u0000\u0001ELF${'x'.repeat(50)}`);
    const minified = call('Read', { file_path: '/repo/a.min.js' }, 'var a=1;'.repeat(100_000));
    const markdown = call('Read', { file_path: '/repo/README.md' }, numbered('# Title\nfunc Nope() {}'));
    expect(record([...binary, ...minified, ...markdown]).workingSet.state.files).toEqual([]);
  });
});

describe('the rendered working set', () => {
  it('counts the lines a grep of piped output matched, not files its `x_test.go:12:` lines name', () => {
    const output =
      '--- FAIL: TestShadow (0.2s)\n    workflow_test.go:1318: ids differ\n    hooks.go:196: exit 1';
    const run = call('Bash', { command: 'go test ./... 2>&1 | grep -A 2 "TestShadow"' }, output);
    const { state } = record(run).workingSet;
    expect(state.searches).toEqual([{ pattern: 'TestShadow', turn: 1, hits: [], total: 0, lines: 3 }]);
    expect(renderWorkingSet(state, { maxTokens: 400, counter })!.text).toContain(
      '- "TestShadow" → 3 matching lines',
    );
  });

  it('heads a file read after its last edit with both turns, not as edited at the read', () => {
    const { state } = record([...read, ...edit, ...read]).workingSet;
    const text = renderWorkingSet(state, { maxTokens: 400, counter })!.text;
    expect(text).toContain('## /repo/cmd/transcript.go (edited t2, read t3)');
  });

  it('shows changed definitions with their signature and the edit, within its budget', () => {
    const { state } = record([...read, ...edit]).workingSet;
    const text = renderWorkingSet(state, { maxTokens: 400, counter })!.text;
    expect(text).toContain('## /repo/cmd/transcript.go (edited t2)');
    expect(text).toContain('- * 11: func CalculateTokenUsage(lines []string) (*Usage, error) {');
    expect(text).toContain('usage.Input++');
    expect(counter.countText(text)).toBeLessThanOrEqual(400);
  });

  it('dates a file by its last edit, and names a later read apart: the read is no edit', () => {
    const { state } = record([...read, ...edit, ...read]).workingSet;
    const text = renderWorkingSet(state, { maxTokens: 400, counter })!.text;
    expect(text).toContain('## /repo/cmd/transcript.go (edited t2, read t3)');
  });

  it('takes a `sed -i` that ran for an edit of its file, and one that failed for none', () => {
    const sed = (script: string, code: number) =>
      call(
        'bash',
        { command: `sed -i '${script}' ${path}` },
        `<returncode>${code}</returncode>\n<output>\n</output>`,
      );
    const failed = record([...read, ...sed('s/x/y/', 1)]).workingSet.state;
    expect(renderWorkingSet(failed, { maxTokens: 400, counter })!.text).toContain(`## ${path} (read t1)`);
    const ran = record([...read, ...sed('s/Usage{}/Usage{Input: 1}/', 0), ...read]).workingSet.state;
    expect(renderWorkingSet(ran, { maxTokens: 400, counter })!.text).toContain(
      `## ${path} (edited t2, read t3)`,
    );
  });

  it('moves the line of an earlier edit by the lines a later edit above it added', () => {
    const top = call(
      'Edit',
      { file_path: path, old_string: 'package cli', new_string: '// Package cli counts.\npackage cli' },
      `The file ${path} has been updated successfully.`,
    );
    const lineOf = (messages: Message[]) => record(messages).workingSet.state.files[0]!.edits[0]!.line!;
    expect(lineOf([...read, ...edit, ...top])).toBe(lineOf([...read, ...edit]) + 1);
  });

  it('lists a name defined again and again once', () => {
    const handlers = call(
      'Read',
      { file_path: '/repo/src/handlers.ts' },
      numbered(
        Array.from({ length: 30 }, () => 'export function handler(input) { return compute(input); }').join(
          '\n',
        ),
      ),
    );
    const { state } = record(handlers).workingSet;
    const text = renderWorkingSet(state, { maxTokens: 400, counter })!.text;
    expect(text).toContain('- also: handler\n');
  });

  it('lists the names the code calls that the file does not define, the most used by the agent first', () => {
    const caller = call(
      'Read',
      { file_path: '/repo/cmd/main.go' },
      numbered(
        'package main\n\nfunc run() error {\n\tpath := filepath.Join(root, name)\n\treturn fmt.Errorf("no %s", path)\n}',
      ),
    );
    const grep = call(
      'Grep',
      { pattern: 'Errorf' },
      '/repo/cmd/main.go:5:\treturn fmt.Errorf("no %s", path)',
    );
    const { state } = record([...caller, ...grep]).workingSet;
    expect(state.files[0]!.names).toEqual(['Join', 'Errorf']);
    expect(renderWorkingSet(state, { maxTokens: 400, counter })!.text).toContain('- uses: Errorf, Join');
  });

  it('lists each file a search found once, with its first hit, after the file the agent edited', () => {
    // Grep content mode with context: many lines per file, paths absolute or relative in one output.
    const lines = (file: string, from: number, count: number) =>
      Array.from({ length: count }, (_, index) => {
        const line = from + index;
        const prefix = index % 2 === 0 ? '/repo/' : '';
        return `${prefix}${file}${index === 2 ? `:${line}:` : `-${line}-`}\tcase EventSessionStop:`;
      });
    const grep = call(
      'Grep',
      { pattern: 'EventSessionStop', output_mode: 'content', '-C': 5 },
      [
        ...lines('cmd/session/phase.go', 280, 11),
        '--',
        ...lines('cmd/strategy/session_state.go', 155, 11),
        '--',
        ...lines('cmd/session/phase_test.go', 64, 11),
      ].join('\n'),
    );
    const { state } = record([...read, ...edit, ...grep]).workingSet;
    expect(state.searches[0]).toEqual({
      pattern: 'EventSessionStop',
      turn: 3,
      hits: [
        '/repo/cmd/session/phase.go:282',
        '/repo/cmd/strategy/session_state.go:157',
        '/repo/cmd/session/phase_test.go:66',
      ],
      total: 3,
    });
    const text = renderWorkingSet(state, { maxTokens: 400, counter })!.text;
    expect(text).toContain(
      '- "EventSessionStop" → /repo/cmd/session/phase.go:282, /repo/cmd/strategy/session_state.go:157, /repo/cmd/session/phase_test.go:66',
    );
  });

  it("lists a search's files within a line: long absolute paths give way to the count", () => {
    const deep = (index: number) =>
      `/Users/dev/go/pkg/mod/github.com/go-git/go-git/v5@v5.17.${index}/plumbing/repository.go:${700 + index}:func CreateTag(`;
    const grep = call(
      'Bash',
      { command: 'rg -n "CreateTag" ~/go/pkg/mod' },
      Array.from({ length: 8 }, (_, index) => deep(index)).join('\n'),
    );
    const { state } = record([...read, ...edit, ...grep]).workingSet;
    expect(state.searches[0]!.hits).toHaveLength(8);
    const line = renderWorkingSet(state, { maxTokens: 2000, counter })!
      .text.split('\n')
      .find((entry) => entry.startsWith('- "CreateTag"'))!;
    expect(line).toContain('v5@v5.17.0/plumbing/repository.go:700');
    expect(line).not.toContain('v5@v5.17.7');
    expect(line).toMatch(/\(8 files\)$/);
    expect(line.length).toBeLessThan(300);
  });

  it('drops the lowest ranked lines first and is undefined without room or content', () => {
    const { state } = record([...read, ...edit]).workingSet;
    const full = renderWorkingSet(state, { maxTokens: 400, counter })!.text;
    expect(full).toContain('- also: Add');
    // One token less: a line below the changed definition and the edit goes, they stay.
    const small = renderWorkingSet(state, { maxTokens: counter.countText(full) - 1, counter })!.text;
    expect(small.split('\n').length).toBeLessThan(full.split('\n').length);
    expect(small).toContain('* 11: func CalculateTokenUsage');
    expect(small).toContain('usage.Input++');
    expect(renderWorkingSet(state, { maxTokens: 0, counter })).toBeUndefined();
    expect(renderWorkingSet(record([]).workingSet.state, { maxTokens: 400, counter })).toBeUndefined();
  });
});

describe('names an object already has', () => {
  it('counts uses of `constructor`, `toString` and `valueOf` as numbers, and ranks them', () => {
    const code =
      'export class Session {\n  constructor(private id: string) {\n    this.id = id;\n  }\n  toString() {\n    return this.id;\n  }\n  valueOf() {\n    return 1;\n  }\n}\n';
    const recorder = record([
      ...call('Read', { file_path: '/repo/src/session.ts' }, numbered(code)),
      { role: 'assistant', content: 'The constructor trims nothing; toString and valueOf are fine.' },
      { role: 'assistant', content: 'Checked constructor, toString and valueOf again.' },
    ]);
    const { state } = recorder.workingSet;
    expect(state.uses).toEqual({ constructor: 2, toString: 2, valueOf: 2 });
    const text = renderWorkingSet(state, { maxTokens: 1200, counter })?.text ?? '';
    expect(text).toContain('- 2: constructor(private id: string) {');
    expect(text).toContain('- 5: toString() {');
  });
});

describe('a file renamed by apply_patch', () => {
  it('is known under its new name, its old one gone', () => {
    const recorder = record([
      ...read,
      ...call(
        'apply_patch',
        {
          input: `*** Begin Patch\n*** Update File: ${path}\n*** Move to: /repo/cmd/usage.go\n@@\n-\treturn &Usage{}, nil\n+\treturn nil, nil\n*** End Patch`,
        },
        'Success.',
      ),
    ]);
    const files = recorder.workingSet.state.files;
    expect(files.map((file) => file.path)).toEqual(['/repo/cmd/usage.go']);
    expect(files[0]!.edits.at(-1)?.text).toBe('\treturn nil, nil');
  });
});
