import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

// Every TypeScript example in the README runs here, against the source (vitest aliases
// `agent-compact/*` to src/). A block preceded by `<!-- not run: reason -->` is skipped.
const root = resolve(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const scratch = join(root, '.readme-examples');

interface Example {
  line: number;
  code: string;
  skipReason: string | undefined;
}

function examples(): Example[] {
  const found: Example[] = [];
  const pattern = /(?:<!-- not run: ([^>]*) -->\s*\n)?```ts\n([\s\S]*?)```/g;
  for (const match of readme.matchAll(pattern)) {
    const line = readme.slice(0, match.index).split('\n').length;
    found.push({ line, code: match[2]!, skipReason: match[1] });
  }
  return found;
}

describe('README examples', () => {
  const blocks = examples();
  mkdirSync(scratch, { recursive: true });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('has runnable examples, including the quick start verbatim from examples/quick-start.ts', () => {
    expect(blocks.filter((block) => !block.skipReason).length).toBeGreaterThanOrEqual(4);
    const quickStart = readFileSync(join(root, 'examples/quick-start.ts'), 'utf8');
    expect(blocks.some((block) => block.code === quickStart)).toBe(true);
  });

  it.each(blocks.filter((block) => !block.skipReason).map((block) => [block.line, block] as const))(
    'the example at README.md line %i runs',
    async (line, block) => {
      const file = join(scratch, `example-${line}.ts`);
      writeFileSync(file, block.code);
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      try {
        await import(pathToFileURL(file).href);
        // Where an example shows its output in a trailing `// …` comment, the output matches it.
        const printed = log.mock.calls.map((call) => call.map(String).join(' '));
        const expected = [...block.code.matchAll(/console\.log\(.*\);\s*\/\/ (.+)$/gm)].map((match) => match[1]!.trim());
        for (const text of expected) expect(printed, `README.md line ${line}: ${JSON.stringify(printed)}`).toContain(text);
      } finally {
        log.mockRestore();
      }
    },
  );
});
