import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samples } from '../core/working-set/__fixtures__/samples.js';
import { languageOf } from '../core/working-set/code-outline.js';
import { lexerOutline } from '../core/working-set/lexer-outline.js';
import { outlineFile } from '../core/working-set/outline-file.js';
import { createTreeSitterCodeParser, type TreeSitterCodeParser } from './index.js';

let parser: TreeSitterCodeParser;
beforeAll(async () => {
  parser = await createTreeSitterCodeParser();
});

const firstLines = (definitions: { name: string; line: number }[] | undefined) =>
  Object.fromEntries(
    (definitions ?? []).toReversed().map((definition) => [definition.name, definition.line]),
  );

describe('the tree-sitter code parser', () => {
  it('loads every grammar', () => {
    expect(parser.languages).toEqual([
      'typescript',
      'tsx',
      'javascript',
      'python',
      'go',
      'rust',
      'java',
      'c',
      'cpp',
      'csharp',
      'ruby',
      'php',
      'kotlin',
      'swift',
    ]);
  });

  it.each(Object.entries(samples))('and the lexer both outline a %s file', (_, sample) => {
    const language = languageOf(sample.path)!;
    const parsed = parser.outline(language, sample.text);
    expect(firstLines(parsed)).toMatchObject(sample.names);
    expect(firstLines(lexerOutline(language, sample.text))).toMatchObject(sample.names);
  });

  it('writes a signature on one line as the line is written, one over several lines up to the body', () => {
    const parsed = parser.outline('go', samples.go.text)!;
    expect(parsed.map((definition) => definition.signature)).toEqual([
      'type Usage struct {',
      'func (u *Usage) Add(other Usage) {',
      'func CalculateTokenUsage(lines []string) (*Usage, error) {',
    ]);
    expect(parser.outline('python', samples.python.text)![1]).toMatchObject({
      kind: 'method',
      signature: 'def total(self, cached=False):',
    });
    const wrapped = parser.outline('python', 'def f(a,\n      b):\n    pass\n')!;
    expect(wrapped[0]!.signature).toBe('def f(a, b):');
  });

  it('leaves a PHP read without its opening tag to the lexer', () => {
    const part =
      '    public function handle(Request $request): Response\n    {\n        return null;\n    }\n';
    expect(parser.outline('php', part)).toBeUndefined();
    expect(firstLines(outlineFile('src/Controller.php', part, parser, 9))).toEqual({ handle: 9 });
  });

  it('ends a C macro on its own line and skips a struct named without its body', () => {
    const parsed = parser.outline('c', samples.c.text)!;
    expect(parsed[0]).toMatchObject({ name: 'BUFFER_MAX', kind: 'constant', line: 3, endLine: 3 });
    expect(parsed.filter((definition) => definition.name === 'buffer')).toHaveLength(1);
  });

  it('names a C++ function returning a reference, and starts a C# signature after its attributes', () => {
    const cpp = parser.outline('cpp', 'Pipe &Loop::createPipe() {\n  return pipe_;\n}\n')!;
    expect(cpp[0]).toMatchObject({ name: 'createPipe', signature: 'Pipe &Loop::createPipe() {' });
    const text =
      '[Guid("6380BCFF-41D3-4B2E-8B2E-BF8A6810C848")]\n[ComImport]\npublic interface IStore\n{\n}\n';
    expect(parser.outline('csharp', text)![0]).toMatchObject({
      name: 'IStore',
      kind: 'interface',
      signature: 'public interface IStore',
      line: 3,
    });
  });

  it('outlines what parses, and never throws on broken code', () => {
    const broken = 'func (( {{ type struct }\nfunc Fine() {\n}\n';
    expect(() => outlineFile('x.go', broken, parser)).not.toThrow();
    expect(outlineFile('x.go', broken, parser)?.map((definition) => definition.name)).toContain('Fine');
  });
});

describe('a grammar that fails to load', () => {
  const directory = mkdtempSync(join(tmpdir(), 'agent-compact-grammars-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('leaves its language to the lexer', async () => {
    writeFileSync(join(directory, 'tree-sitter-go.wasm'), 'not a wasm module');
    const partial = await createTreeSitterCodeParser({
      grammarDirectory: directory,
      languages: ['go', 'rust'],
    });
    expect(partial.languages).toEqual([]);
    expect(partial.outline('go', samples.go.text)).toBeUndefined();
    expect(firstLines(outlineFile(samples.go.path, samples.go.text, partial))).toMatchObject(
      samples.go.names,
    );
  });
});
