import { describe, expect, it } from 'vitest';
import { toolCallFact } from '../ledger/tool-call-facts.js';
import type { ToolUseBlock } from '../model/messages.js';
import { fileReadOf, mayChange, shellRead, shownRead } from './file-reads.js';

const envelope = (output: string, code = 0) =>
  `<returncode>${code}</returncode>\n<output>\n${output}</output>`;

const use = (name: string, input: Record<string, unknown>): ToolUseBlock => ({
  type: 'tool_use',
  id: 'toolu_1',
  name,
  input,
});

describe('shellRead', () => {
  it.each([
    ['cat src/a.py', { path: 'src/a.py', whole: true, shape: 'plain', firstLine: 1 }],
    ["cat 'src/a b.py'", undefined],
    ['cat "src/a.py"', { path: 'src/a.py', whole: true, shape: 'plain', firstLine: 1 }],
    ['cat -n src/a.py', { path: 'src/a.py', whole: true, shape: 'numbered', firstLine: 1 }],
    ["sed -n '10,80p' src/a.py", { path: 'src/a.py', whole: false, shape: 'plain', firstLine: 10 }],
    ['sed -n 7p src/a.py', { path: 'src/a.py', whole: false, shape: 'plain', firstLine: 7 }],
    ['sed -n "3,4p" src/a.py\n', { path: 'src/a.py', whole: false, shape: 'plain', firstLine: 3 }],
    ["nl -ba src/a.py | sed -n '1,50p'", { path: 'src/a.py', whole: false, shape: 'numbered', firstLine: 1 }],
    ['head -n 40 src/a.py', { path: 'src/a.py', whole: false, shape: 'plain', firstLine: 1 }],
    ['head -40 src/a.py', { path: 'src/a.py', whole: false, shape: 'plain', firstLine: 1 }],
    ['open src/a.py 120', { path: 'src/a.py', whole: false, shape: 'window', firstLine: 1 }],
    // Ambiguous or not only a read: stays a command.
    ['cat a.py b.py', undefined],
    ['cat src/*.py', undefined],
    ['cat $FILE', undefined],
    ['cat a.py | grep foo', undefined],
    ['cat a.py > b.py', undefined],
    ["sed -n '80,10p' a.py", undefined],
    ["sed -i 's/a/b/' a.py", undefined],
    ["sed -n '/def/p' a.py", undefined],
    ["nl a.py | sed -n '1,5p'", undefined],
    ["nl -ba a.py | sed -n '1,5p' | head", undefined],
    ['cd src && cat a.py', undefined],
    ['cat a.py\ncat b.py', undefined],
    ['tail -n 20 a.py', undefined],
  ])('%j', (command, expected) => {
    expect(shellRead(command)).toEqual(expected);
  });
});

describe('fileReadOf', () => {
  it.each([
    [use('Read', { file_path: 'a.ts' }), { path: 'a.ts', whole: true }],
    [use('Read', { file_path: 'a.ts', offset: 10, limit: 5 }), { path: 'a.ts', whole: false }],
    [use('bash', { command: "sed -n '5,9p' a.ts" }), { path: 'a.ts', whole: false }],
    [use('open', { command: 'open a.ts' }), { path: 'a.ts', whole: false }],
    [use('bash', { command: 'ls src' }), undefined],
    [use('Edit', { file_path: 'a.ts', old_string: 'a', new_string: 'b' }), undefined],
    [use('read', { filePath: '/repo/a.ts' }), { path: '/repo/a.ts', whole: true }],
    [use('read_file', { file_path: 'a.ts', start_line: 40, end_line: 60 }), { path: 'a.ts', whole: false }],
  ])('%j', (call, expected) => {
    const read = fileReadOf(call, toolCallFact(call));
    expect(read && { path: read.path, whole: read.whole }).toEqual(expected);
  });
});

describe('shownRead', () => {
  it('takes `sed -n` output from the envelope, numbered from the range start', () => {
    const read = shellRead("sed -n '10,11p' a.py")!;
    expect(shownRead(read, envelope('def f():\n    return 1\n'))).toEqual({
      text: 'def f():\n    return 1',
      firstLine: 10,
      whole: false,
    });
  });

  it('takes a whole `cat` and strips `nl -ba` numbers', () => {
    expect(shownRead(shellRead('cat a.py')!, envelope('x = 1\n'))).toEqual({
      text: 'x = 1',
      firstLine: 1,
      whole: true,
    });
    const numbered = shellRead("nl -ba a.py | sed -n '20,21p'")!;
    expect(shownRead(numbered, envelope('    20\tx = 1\n    21\ty = 2\n'))).toEqual({
      text: 'x = 1\ny = 2',
      firstLine: 20,
      whole: false,
    });
  });

  it.each([
    ['a failed command', envelope('cat: a.py: No such file or directory\n', 1)],
    [
      'a cut output',
      '<returncode>0</returncode>\n<warning>too long</warning><output_head>\nx\n</output_head>',
    ],
    ['no output', envelope('')],
  ])('is undefined for %s', (_, result) => {
    expect(shownRead(shellRead('cat a.py')!, result)).toBeUndefined();
  });

  it("takes the file's text from Codex's exec header and Gemini CLI's trailer lines", () => {
    const codex = [
      `Command: /bin/zsh -lc "sed -n '1,260p' main.go"`,
      'Chunk ID: 72a6c1',
      'Wall time: 0.0000 seconds',
      'Process exited with code 0',
      'Original token count: 9',
      'Output:',
      'package main',
      '',
      'func main() {}',
      '',
    ].join('\n');
    expect(shownRead(shellRead("sed -n '1,260p' main.go")!, codex)).toEqual({
      text: 'package main\n\nfunc main() {}',
      firstLine: 1,
      whole: false,
    });
    const gemini = 'Output: x = 1\ny = 2\nProcess Group PGID: 4242';
    expect(shownRead(shellRead('cat a.py')!, gemini)).toEqual({
      text: 'x = 1\ny = 2',
      firstLine: 1,
      whole: true,
    });
  });

  it.each([
    [
      'Codex cut it',
      'Exit code: 0\nTotal output lines: 900\nOutput:\nx = 1\n…812 tokens truncated…\ny = 2\n',
    ],
    ['it failed under Codex', 'Exit code: 1\nOutput:\ncat: a.py: No such file or directory\n'],
    [
      'it still runs under Codex',
      'Command: cat a.py\nChunk ID: 1\nProcess running with session ID 7\nOutput:\nx = 1\n',
    ],
    ['it failed under Gemini CLI', 'Output: cat: a.py: No such file\nExit Code: 1\nProcess Group PGID: 7'],
  ])('is undefined when %s', (_, result) => {
    expect(shownRead(shellRead('cat a.py')!, result)).toBeUndefined();
  });

  it("reads opencode's Read, in both of its envelopes", () => {
    const read = { path: '/repo/a.py', whole: true, shape: 'numbered', firstLine: 1 } as const;
    const current =
      '<path>/repo/a.py</path>\n<type>file</type>\n<content>\n1: def f():\n2:     return 1\n\n(End of file - total 2 lines)\n</content>';
    expect(shownRead(read, current)).toEqual({ text: 'def f():\n    return 1', firstLine: 1, whole: true });
    const earlier =
      '<file>\n00040| x = 1\n00041| y = 2\n\n(File has more lines. Use offset to read beyond line 41)\n</file>';
    const cut = current.replace(
      '(End of file - total 2 lines)',
      '(Showing lines 1-2 of 4000. Use offset=3 to continue.)',
    );
    expect(shownRead(read, cut)).toMatchObject({ firstLine: 1, whole: false });
    expect(shownRead({ ...read, whole: false }, earlier)).toEqual({
      text: 'x = 1\ny = 2',
      firstLine: 40,
      whole: false,
    });
  });

  it("reads Gemini CLI's note on a part of a file", () => {
    const call = use('read_file', { file_path: 'a.py' });
    const read = fileReadOf(call, toolCallFact(call))!;
    const result = [
      '',
      'IMPORTANT: The file content has been truncated.',
      'Status: Showing lines 1-2 of 900 total lines.',
      "Action: To read more of the file, you can use the 'start_line' and 'end_line' parameters.",
      '',
      '--- FILE CONTENT (truncated) ---',
      'x = 1',
      'y = 2',
    ].join('\n');
    expect(shownRead(read, result)).toEqual({ text: 'x = 1\ny = 2', firstLine: 1, whole: false });
  });

  it('starts an unnumbered part of a file at the line the call asked for (Gemini CLI `start_line`)', () => {
    const call = use('read_file', { file_path: 'a.py', start_line: 40, end_line: 41 });
    const read = fileReadOf(call, toolCallFact(call))!;
    expect(shownRead(read, 'x = 1\ny = 2')).toEqual({ text: 'x = 1\ny = 2', firstLine: 40, whole: false });
  });

  it("reads SWE-agent's window: whole only when it shows every line", () => {
    const read = shellRead('open a.py')!;
    const all = '[File: /repo/a.py (2 lines total)]\n1:x = 1\n2:y = 2\n';
    expect(shownRead(read, all)).toEqual({ text: 'x = 1\ny = 2', firstLine: 1, whole: true });
    const part =
      '[File: /repo/a.py (300 lines total)]\n(99 more lines above)\n100:x = 1\n101:y = 2\n(199 more lines below)\n';
    expect(shownRead(read, part)).toEqual({ text: 'x = 1\ny = 2', firstLine: 100, whole: false });
    expect(shownRead(read, 'File a.py not found')).toBeUndefined();
  });
});

describe('mayChange', () => {
  it.each([
    ["sed -i 's/a/b/' src/a.py", true],
    ['echo x > src/a.py', true],
    ['git checkout src/a.py', true],
    ['python reproduce.py 2>&1', false],
    ['grep -n foo src/a.py', false],
    ["sed -i 's/a/b/' src/other.py", false],
    ['black src/a.py && python -m pytest', false],
    ['gofmt -w src/a.py internal/b.go && go test ./...', false],
    ["gofmt -w src/b.py; sed -i 's/a/b/' src/a.py", true],
    ['prettier --write src/a.py > /tmp/log', false],
    ['prettier --write src/b.py | tee src/a.py', true],
  ])('%j', (command, expected) => {
    expect(mayChange(command, 'src/a.py')).toBe(expected);
  });
});
