import { describe, expect, it } from 'vitest';
import { samples } from './__fixtures__/samples.js';
import type { CodeParser } from './code-outline.js';
import { lexerOutline } from './lexer-outline.js';
import { isUnreadable, outlineFile, stripLineNumbers, withoutLineNumber } from './outline-file.js';

/** Each name at its first definition (a Rust `impl` repeats its type's name). */
const names = (definitions: { name: string; line: number }[] | undefined) =>
  Object.fromEntries(
    (definitions ?? []).toReversed().map((definition) => [definition.name, definition.line]),
  );

describe('the lexer outline', () => {
  it.each(Object.entries(samples))('finds the definitions of a %s file', (_, sample) => {
    const definitions = outlineFile(sample.path, sample.text, undefined);
    expect(names(definitions)).toMatchObject(sample.names);
  });

  it('gives each definition its first line as written (what an edit of it must match) and where the body ends', () => {
    const [usage, add, calculate] = lexerOutline('go', samples.go.text);
    expect(usage).toMatchObject({ kind: 'type', signature: 'type Usage struct {', line: 3, endLine: 5 });
    expect(add).toMatchObject({
      kind: 'method',
      signature: 'func (u *Usage) Add(other Usage) {',
      endLine: 9,
    });
    expect(calculate?.signature).toBe('func CalculateTokenUsage(lines []string) (*Usage, error) {');
  });

  it.each([
    [
      'go',
      'package x\n\nconst (\n\t// the state file\n\tstateFile = "state.json"\n\tlockTTL time.Duration = 5\n)\n\nvar debug = false\nconst limit = 3\n\nfunc f() {\n\tconst local = 1\n}\n',
      ['stateFile', 'lockTTL', 'debug', 'limit', 'f'],
    ],
    [
      'typescript',
      'export const LIMIT = 3;\nlet cache: Map<string, number> = new Map();\nexport const run = () => 1;\nfunction g() {\n  const local = 1;\n}\n',
      ['LIMIT', 'cache', 'run', 'g'],
    ],
    [
      'python',
      'MAX_LINES = 100\ntimeout: float = 2.5\nif MAX_LINES == 3:\n    pass\ndef f():\n    local = 1\n',
      ['MAX_LINES', 'timeout', 'f'],
    ],
    ['rust', 'pub const MAX: usize = 3;\nstatic mut COUNT: u32 = 0;\nfn f() {}\n', ['MAX', 'COUNT', 'f']],
    [
      'java',
      'class A {\n  private static final int LIMIT = 3;\n  int plain = 1;\n  void run() {\n  }\n}\n',
      ['A', 'LIMIT', 'run'],
    ],
    [
      'c',
      '#define LIMIT 3\ntypedef unsigned long size;\nstatic const int local = 1;\nint f(void) {\n  return LIMIT;\n}\n',
      ['LIMIT', 'size', 'f'],
    ],
    [
      'csharp',
      'class A\n{\n    public const int Limit = 3;\n    private int plain = 1;\n}\n',
      ['A', 'Limit'],
    ],
    [
      'ruby',
      'MAX_TURNS = 40\nclass A\n  LIMIT = 3\n  def run\n    local = 1\n  end\nend\n',
      ['MAX_TURNS', 'A', 'LIMIT', 'run'],
    ],
    ['php', '<?php\nclass A {\n    const VERSION = 2;\n    private $plain = 1;\n}\n', ['A', 'VERSION']],
    [
      'kotlin',
      'const val MAX_RETRIES = 3\nval debug = false\nfun f() {\n    val local = 1\n}\n',
      ['MAX_RETRIES', 'debug', 'f'],
    ],
    ['swift', 'let limit = 3\nfunc f() {\n    let local = 1\n}\n', ['limit', 'f']],
  ] as const)('finds the top-level constants of a %s file', (language, text, expected) => {
    expect(lexerOutline(language, text).map((definition) => definition.name)).toEqual(expected);
  });

  it("ends a constant's definition where its value's brackets close", () => {
    const text = 'export const table = {\n  a: 1,\n  b: [2, 3],\n};\nexport const after = 1;\n';
    expect(lexerOutline('typescript', text).map(({ name, line, endLine }) => [name, line, endLine])).toEqual([
      ['table', 1, 4],
      ['after', 5, 5],
    ]);
  });

  it.each([
    [
      'c',
      'int f(int a);\nint g(int a)\n{\n    if (a) {\n    }\n    while (a) {\n    }\n    return h(a,\n        1);\n}\n',
      ['g'],
    ],
    ['cpp', 'void A::run() {\n  else if (x) {\n  }\n  delete ptr;\n}\nint size() const;\n', ['run']],
    [
      'cpp',
      'static void write(Builder &out, int flags,\n    const Flag (&table)[n],\n    bool all)\n{\n}\n',
      ['write'],
    ],
    [
      'csharp',
      'class A\n{\n    void Run()\n    {\n        foreach (var x in xs)\n        {\n        }\n        using (var f = Open())\n        {\n        }\n    }\n}\n',
      ['A', 'Run'],
    ],
  ] as const)('takes no statement, call or prototype in %s for a function', (language, text, expected) => {
    expect(lexerOutline(language, text).map((definition) => definition.name)).toEqual(expected);
  });

  it.each([
    [
      'ruby',
      'class A\n  def run\n    1\n  end\n\n  def stop; end\nend\n',
      [
        ['A', 1, 7],
        ['run', 2, 4],
        ['stop', 6, 6],
      ],
    ],
    [
      'kotlin',
      'interface I\nfun f(\n    a: Int,\n) =\n    a + 1\nclass B : I {\n}\n',
      [
        ['I', 1, 1],
        ['f', 2, 5],
        ['B', 6, 7],
      ],
    ],
    [
      'swift',
      'protocol P {\n}\nfunc f() -> Int\n{\n    1\n}\n',
      [
        ['P', 1, 2],
        ['f', 3, 6],
      ],
    ],
  ] as const)('ends a %s definition where its body ends', (language, text, expected) => {
    expect(lexerOutline(language, text).map(({ name, line, endLine }) => [name, line, endLine])).toEqual(
      expected,
    );
  });

  it.each([
    ['csharp', 'public interface IStore\n{\n}\npublic enum Kind { A }\n', ['interface', 'enum']],
    ['swift', 'protocol P {\n}\nstruct S {\n}\nextension S {\n}\n', ['protocol', 'struct', 'extension']],
    ['kotlin', 'interface I\nobject O {\n}\n', ['interface', 'object']],
    ['php', '<?php\ntrait T {\n}\n', ['trait']],
    ['cpp', 'struct S {\n};\n', ['struct']],
  ] as const)('names a %s type by its keyword', (language, text, kinds) => {
    expect(lexerOutline(language, text).map((definition) => definition.kind)).toEqual(kinds);
  });

  it('does not take statements for methods', () => {
    const text = 'class A {\n  run() {\n    if (x) {\n    }\n    for (;;) {\n    }\n  }\n}\n';
    expect(lexerOutline('typescript', text).map((definition) => definition.name)).toEqual(['A', 'run']);
  });
});

describe('what is not outlined', () => {
  const go = samples.go;
  it.each([
    ['an unknown language', 'notes/readme.md', go.text],
    ['a file without extension', 'Makefile', go.text],
    ['binary contents', 'bin/tool.go', `\u007fELF\u0002\u0001\u0001${'\u0000'.repeat(57)}${go.text}`],
    ['binary contents read as UTF-8', 'bin/tool.go', `${'\uFFFD\u0001'.repeat(40)}${go.text}`],
    ['minified code', 'dist/app.js', `function a(){return 1};${'var b=function(){return 2};'.repeat(200)}`],
    ['a 1 MB line', 'gen/data.ts', `export const data = "${'x'.repeat(1_000_000)}";\nfunction f() {\n}\n`],
  ])('%s gives nothing', (_, path, text) => {
    expect(outlineFile(path, text, undefined)).toBeUndefined();
  });

  it('is told unreadable text apart from code', () => {
    expect(isUnreadable(go.text)).toBe(false);
    expect(isUnreadable('\uFFFD\uFFFDPNG')).toBe(true);
  });
});

describe('source with odd bytes', () => {
  const { typescript } = samples;
  const expected = outlineFile(typescript.path, typescript.text, undefined);

  it.each([
    ['CR line endings (classic Mac)', typescript.text.replaceAll('\n', '\r')],
    ['CRLF line endings', typescript.text.replaceAll('\n', '\r\n')],
    ['a NUL in a string', typescript.text.replace('return;', 'return "\u0000";')],
    ['a stray NUL byte at the end', `${typescript.text}\u0000`],
  ])('outlines a file with %s as the plain one', (_, text) => {
    expect(expected?.length).toBeGreaterThan(0);
    expect(outlineFile(typescript.path, text, undefined)).toEqual(expected);
    expect(isUnreadable(text)).toBe(false);
  });

  it('takes a file of long CR-only lines as lines, not one long line', () => {
    const text = Array.from({ length: 400 }, (_, index) => `function f${index}(a, b) { return a + b; }`).join(
      '\r',
    );
    expect(isUnreadable(text)).toBe(false);
    expect(outlineFile('src/f.ts', text, undefined)).toHaveLength(400);
  });
});

describe('a parser', () => {
  it('is used for the languages it takes', () => {
    const parser: CodeParser = {
      specificationVersion: 'v1',
      outline: (language) =>
        language === 'go'
          ? [{ name: 'Parsed', kind: 'function', signature: 'func Parsed()', line: 1, endLine: 2 }]
          : undefined,
    };
    expect(names(outlineFile(samples.go.path, samples.go.text, parser))).toEqual({ Parsed: 1 });
    // A language it does not take goes to the lexer.
    expect(names(outlineFile(samples.python.path, samples.python.text, parser))).toMatchObject(
      samples.python.names,
    );
  });

  it('that throws or answers nonsense leaves the text to the lexer, never a throw', () => {
    const throwing: CodeParser = {
      specificationVersion: 'v1',
      outline: () => {
        throw new Error('grammar crashed');
      },
    };
    const nonsense = { specificationVersion: 'v1', outline: () => 'not a list' } as unknown as CodeParser;
    for (const parser of [throwing, nonsense]) {
      expect(names(outlineFile(samples.rust.path, samples.rust.text, parser))).toMatchObject(
        samples.rust.names,
      );
    }
  });

  it('counts lines from where a partial read starts', () => {
    const definitions = outlineFile(samples.go.path, samples.go.text, undefined, 101);
    expect(names(definitions)).toMatchObject({ Usage: 103, CalculateTokenUsage: 111 });
  });
});

describe('line numbers of read tools', () => {
  it('are taken off, with the first line kept', () => {
    const shown = '    40→func A() {\n    41→}\n\n<system-reminder>note</system-reminder>';
    expect(stripLineNumbers(shown)).toEqual({ text: 'func A() {\n}', firstLine: 40 });
    expect(stripLineNumbers('     7\tx := 1\n     8\ty := 2')).toEqual({
      text: 'x := 1\ny := 2',
      firstLine: 7,
    });
    expect(stripLineNumbers('plain text')).toEqual({ text: 'plain text', firstLine: 1 });
  });

  it("are taken off one line at a time, in each read tool's form", () => {
    expect(
      ['    40→func A() {', '     7\tx := 1', '12: const a = 1;', 'plain 12: text'].map(withoutLineNumber),
    ).toEqual(['func A() {', 'x := 1', 'const a = 1;', 'plain 12: text']);
  });
});
