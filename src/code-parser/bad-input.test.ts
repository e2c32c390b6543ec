/**
 * Bad input for the working set's parsers, with the real tree-sitter parser and with the lexer:
 * binary or minified contents, 1 MB lines, unknown languages, a parse cancelled → the lexer's
 * outline or nothing, never a throw.
 */

import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Node, Parser } from 'web-tree-sitter';
import { LedgerRecorder } from '../core/ledger/record-messages.js';
import type { Message } from '../core/model/messages.js';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.js';
import { samples } from '../core/working-set/__fixtures__/samples.js';
import type { CodeParser } from '../core/working-set/code-outline.js';
import { lexerOutline } from '../core/working-set/lexer-outline.js';
import { outlineFile } from '../core/working-set/outline-file.js';
import { renderWorkingSet } from '../core/working-set/render-working-set.js';
import { createTreeSitterCodeParser, type TreeSitterCodeParser } from './index.js';

let treeSitter: TreeSitterCodeParser;
beforeAll(async () => {
  treeSitter = await createTreeSitterCodeParser();
});

/** Bytes 0–255 in a fixed scramble, read as a tool shows them (latin1, or UTF-8 with U+FFFD). */
const bytes = Buffer.from(Array.from({ length: 65_536 }, (_, index) => (index * 7919) % 256));
/** Plain code that outlines: `f0` … `f<count - 1>`, 40 bytes a function. */
const functions = (count: number) =>
  Array.from({ length: count }, (_, index) => `function f${index}(a, b) {\n  return a + b;\n}`).join('\n');
const code = functions(1000);
/** A line of 100,000 open brackets in 400 KB of code: readable (a fifth of the text), and no parse. */
const deep = `  x${'('.repeat(100_000)}\n${functions(10_000)}`;

const unreadable: Array<[string, string, string]> = [
  ['binary bytes read as latin1', 'bin/tool.ts', `${bytes.toString('latin1')}\n${code}`],
  ['binary bytes read as UTF-8', 'bin/tool.py', bytes.toString('utf8')],
  ['a minified 1 MB one-line script', 'dist/app.min.js', 'var a=function(){return b(1)};'.repeat(35_000)],
  [
    'a 1 MB line of data',
    'gen/data.ts',
    `export const data = "${'x'.repeat(1_000_000)}";\nfunction f() {\n}\n`,
  ],
  ['a file of a language neither knows', 'notes/design.zig', code],
  ['a file without extension', 'Dockerfile', code],
];

const parsers: Array<[string, () => CodeParser | undefined]> = [
  ['tree-sitter', () => treeSitter],
  ['the lexer', () => undefined],
];

describe.each(parsers)('outlineFile with %s', (_, parser) => {
  it.each(unreadable)('gives nothing for %s', (_, path, text) => {
    expect(outlineFile(path, text, parser())).toBeUndefined();
  });

  it('outlines by the lexer a readable file with a 100,000-character line of open brackets', () => {
    // Tree-sitter's error recovery on such a line (300,000 long) took 54 s (TypeScript) and 240 s (Python).
    for (const path of ['src/deep.ts', 'src/deep.py', 'src/deep.java', 'src/deep.go', 'src/deep.rs']) {
      const definitions = outlineFile(path, deep, parser());
      expect(definitions).toBeDefined();
      if (path.endsWith('.ts')) expect(definitions).toHaveLength(400);
    }
  });
});

describe('the tree-sitter parser itself', () => {
  it('hands a text with a line over 1,000 characters to the lexer without parsing it', () => {
    const more = Array.from({ length: 200 }, (_, index) => `func g${index}() {\n}`).join('\n');
    const text = `${samples.go.text}\nvar data = "${'('.repeat(1001)}"\n${more}\n`;
    expect(treeSitter.outline('go', text)).toBeUndefined();
    expect(outlineFile('x.go', text, treeSitter)).toEqual(lexerOutline('go', text));
    expect(treeSitter.outline('go', text.replace('('.repeat(1001), '('.repeat(900)))).toBeDefined();
  });

  it('outlines deeply nested definitions without asking a node for its parent', () => {
    // `Node.parent` walks down from the root: asked for each definition, 8,000 nested arrow
    // functions (170 KB) took 28 s.
    const parent = vi.spyOn(Node.prototype, 'parent', 'get');
    try {
      const arrows = `${'const a = () => {\n'.repeat(2000)}${'};\n'.repeat(2000)}`;
      const nested = `${'function f() {\n'.repeat(2000)}${'}\n'.repeat(2000)}`;
      const python = Array.from(
        { length: 60 },
        (_, depth) =>
          `${'    '.repeat(depth)}${depth % 2 === 0 ? `class C${depth}:` : `def m${depth}(self):`}`,
      ).join('\n');
      expect(treeSitter.outline('typescript', arrows)).toHaveLength(2000);
      expect(treeSitter.outline('typescript', nested)).toHaveLength(2000);
      const methods = treeSitter.outline('python', `${python}\n${'    '.repeat(60)}pass\n`);
      expect(methods?.map((definition) => definition.kind)).toEqual(
        Array.from({ length: 60 }, (_, depth) => (depth % 2 === 0 ? 'class' : 'method')),
      );
      expect(parent).not.toHaveBeenCalled();
    } finally {
      parent.mockRestore();
    }
  });

  it('answers undefined, not a throw, when WebAssembly traps in the parse, the reset or the walk', () => {
    const trap = () => {
      // What a trap throws: a RuntimeError (WebAssembly's, not in this project's type lib).
      throw Object.assign(new Error('memory access out of bounds'), { name: 'RuntimeError' });
    };
    const spies = [
      vi.spyOn(Parser.prototype, 'parse').mockImplementation(trap),
      vi.spyOn(Parser.prototype, 'reset').mockImplementation(trap),
    ];
    try {
      expect(treeSitter.outline('typescript', code)).toBeUndefined();
      expect(outlineFile('src/code.ts', code, treeSitter)).toHaveLength(400);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    const walk = vi.spyOn(Node.prototype, 'descendantsOfType').mockImplementation(trap);
    try {
      expect(treeSitter.outline('go', samples.go.text)).toBeUndefined();
    } finally {
      walk.mockRestore();
    }
    expect(treeSitter.outline('go', samples.go.text)).toEqual(expect.arrayContaining([expect.anything()]));
  });

  it('cancels a parse over its budget and leaves the text to the lexer, parse after parse', async () => {
    const hurried = await createTreeSitterCodeParser({ languages: ['typescript'], parseBudgetMs: -1 });
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(hurried.outline('typescript', code)).toBeUndefined();
      expect(outlineFile('src/code.ts', code, hurried)).toEqual(
        lexerOutline('typescript', code).slice(0, 400),
      );
    }
    expect(treeSitter.outline('typescript', code)).toHaveLength(1000);
  });
});

let next = 0;
function call(name: string, input: Record<string, unknown>, result: string): Message[] {
  const id = `toolu_bad_${++next}`;
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
  ];
}

describe('the working set over bad tool results', () => {
  it.each(parsers)('records what it can read and passes over the rest with %s', (_, parser) => {
    const recorder = new LedgerRecorder(undefined, { parser: parser() });
    const good = `/repo/${samples.typescript.path}`;
    const messages: Message[] = [
      { role: 'user', content: 'fix the runner' },
      ...unreadable.flatMap(([, path, text]) => call('Read', { file_path: `/repo/${path}` }, text)),
      ...call('Read', { file_path: '/repo/src/deep.ts' }, deep),
      ...call(
        'Edit',
        { file_path: '/repo/bin/tool.ts', old_string: 'a', new_string: bytes.toString('latin1') },
        'ok',
      ),
      ...call('Grep', { pattern: 'runTask' }, bytes.toString('latin1')),
      ...call('Read', { file_path: good }, samples.typescript.text),
    ];
    expect(() => recorder.sync(messages)).not.toThrow();
    const { state } = recorder.workingSet;
    expect(state.files.map((file) => file.path)).toEqual(['/repo/src/deep.ts', good]);
    const rendered = renderWorkingSet(state, { maxTokens: 1200, counter: createHeuristicCounter() });
    expect(rendered?.text).toContain('runTask');
  });
});
