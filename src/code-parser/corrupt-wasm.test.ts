/**
 * A corrupt `tree-sitter.wasm` or grammar: the parser still comes up, with the languages that
 * loaded, and the lexer outlines the rest. Its own file: tree-sitter's runtime starts once per
 * module graph, and a test file that started it already would never read a corrupt one.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { samples } from '../core/working-set/__fixtures__/samples.js';
import { lexerOutline } from '../core/working-set/lexer-outline.js';
import { outlineFile } from '../core/working-set/outline-file.js';
import { useTempDirs } from '../temp-dirs.test-utils.js';
import { createTreeSitterCodeParser } from './index.js';

const tempDir = useTempDirs();

const require = createRequire(import.meta.url);
const directory = tempDir('agent-compact-corrupt-wasm-');
/** The first bytes of a real file: a wasm header whose sections run past the end (CompileError). */
const truncated = (file: string) => readFileSync(file).subarray(0, 300);

const corruptRuntime = join(directory, 'tree-sitter.wasm');
writeFileSync(corruptRuntime, truncated(require.resolve('web-tree-sitter/tree-sitter.wasm')));
const grammars = join(dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');
const corruptGrammars = join(directory, 'grammars');
const { typescript } = samples;

describe('createTreeSitterCodeParser on corrupt WebAssembly', () => {
  // In this order: a runtime that failed to start leaves it free to start from a good file.
  it('starts with no language when tree-sitter.wasm does not compile, and the lexer outlines', async () => {
    const parser = await createTreeSitterCodeParser({ runtimeFile: corruptRuntime });
    expect(parser.languages).toEqual([]);
    expect(parser.outline('typescript', typescript.text)).toBeUndefined();
    expect(outlineFile(typescript.path, typescript.text, parser)).toEqual(
      lexerOutline('typescript', typescript.text),
    );
  });

  it('leaves a language whose grammar does not compile to the lexer', async () => {
    mkdirSync(corruptGrammars);
    for (const file of readdirSync(grammars).filter((name) => name.endsWith('.wasm')))
      writeFileSync(join(corruptGrammars, file), truncated(join(grammars, file)));
    writeFileSync(
      join(corruptGrammars, 'tree-sitter-go.wasm'),
      readFileSync(join(grammars, 'tree-sitter-go.wasm')),
    );
    const parser = await createTreeSitterCodeParser({ grammarDirectory: corruptGrammars });
    expect(parser.languages).toEqual(['go']);
    expect(parser.outline('typescript', typescript.text)).toBeUndefined();
    expect(parser.outline('go', samples.go.text)?.map((definition) => definition.name)).toEqual(
      Object.keys(samples.go.names),
    );
  });
});
