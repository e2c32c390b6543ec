import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it, vi } from 'vitest';

// Every TypeScript example in the README and in docs/ runs here, against the source (vitest
// aliases `agent-compact/*` to src/), and prints what its `console.log(...); // …` comments say.
// A block preceded by `<!-- not run: reason -->` is skipped. Running them does not check their
// types (vitest strips them), so they are also compiled together as a reader's editor would.
const root = resolve(import.meta.dirname, '..');
const scratch = join(root, '.readme-examples');
// A hang guard, not a speed bound: the one program takes in every SDK's types (about 3,000 files,
// a minute on a loaded 2-core machine).
const TYPE_CHECK_HANG_GUARD_MS = 10 * 60_000;
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

interface Example {
  document: string;
  line: number;
  code: string;
  skipReason: string | undefined;
}

function examples(document: string): Example[] {
  const text = readFileSync(join(root, document), 'utf8');
  const found: Example[] = [];
  const pattern = /(?:<!-- not run: ([^>]*) -->\s*\n)?```ts\n([\s\S]*?)```/g;
  for (const match of text.matchAll(pattern)) {
    const line = text.slice(0, match.index).split('\n').length;
    found.push({ document, line, code: match[2]!, skipReason: match[1] });
  }
  return found;
}

/** The type errors of the examples, each as `document:line: message`, compiled as tsconfig.json compiles examples/. */
function typeErrors(blocks: readonly Example[]): string[] {
  const folder = join(scratch, 'types');
  mkdirSync(folder, { recursive: true });
  const files = new Map(
    blocks.map((block) => [
      join(folder, `${block.document.replace(/[^A-Za-z0-9]+/g, '-')}-${block.line}.ts`),
      block,
    ]),
  );
  for (const [file, block] of files) writeFileSync(file, block.code);
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  );
  const program = ts.createProgram([...files.keys()], { ...config!.options, noEmit: true });
  return ts.getPreEmitDiagnostics(program).flatMap((diagnostic) => {
    const block = diagnostic.file && files.get(diagnostic.file.fileName);
    if (!block) return [];
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    return [`${block.document}:${block.line + 1 + line}: ${message}`];
  });
}

describe('README and docs examples', () => {
  const blocks = documents.flatMap(examples);
  mkdirSync(scratch, { recursive: true });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('has runnable examples, including the quick start verbatim from examples/quick-start.ts', () => {
    expect(blocks.filter((block) => !block.skipReason).length).toBeGreaterThanOrEqual(8);
    const quickStart = readFileSync(join(root, 'examples/quick-start.ts'), 'utf8');
    expect(blocks.some((block) => block.code === quickStart)).toBe(true);
  });

  it(
    'type-check against the public API',
    () => {
      expect(typeErrors(blocks.filter((block) => !block.skipReason))).toEqual([]);
    },
    TYPE_CHECK_HANG_GUARD_MS,
  );

  it.each(
    blocks
      .filter((block) => !block.skipReason)
      .map((block) => [`${block.document}:${block.line}`, block] as const),
  )('the example at %s runs', async (where, block) => {
    const line = where;
    const file = join(scratch, `${where.replace(/[^A-Za-z0-9]+/g, '-')}.ts`);
    writeFileSync(file, block.code);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    // The folders an example makes in os.tmpdir() (an archive's) go inside the scratch folder.
    vi.stubEnv('TMPDIR', scratch);
    try {
      await import(pathToFileURL(file).href);
      // Where an example shows its output in a trailing `// …` comment, the output matches it.
      const printed = log.mock.calls.map((call) => call.map(String).join(' '));
      const expected = [...block.code.matchAll(/console\.log\(.*\);[ \t]*\/\/ (.+)$/gm)].map((match) =>
        match[1]!.trim(),
      );
      for (const text of expected) expect(printed, `${line}: ${JSON.stringify(printed)}`).toContain(text);
    } finally {
      log.mockRestore();
      vi.unstubAllEnvs();
    }
  });
});
