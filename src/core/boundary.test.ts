import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const coreDirectory = dirname(fileURLToPath(import.meta.url));

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === '__fixtures__' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !/\.test(-utils)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('the core', () => {
  const files = sourceFiles(coreDirectory);

  it.each(files.map((file) => [relative(coreDirectory, file), file]))(
    '%s imports only the core itself',
    (_name, file) => {
      const text = readFileSync(file, 'utf8');
      const patterns = [
        /^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)';/gm,
        /^import\s+'([^']+)';/gm,
        /\bimport\(\s*'([^']+)'\s*\)/g,
      ];
      const specifiers = patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]!));
      for (const specifier of specifiers) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\.?\//);
        const target = resolve(dirname(file), specifier);
        expect(
          relative(coreDirectory, target).startsWith('..'),
          `${file} reaches outside src/core: ${specifier}`,
        ).toBe(false);
      }
    },
  );

  it('public barrel exports only from the core', () => {
    const barrel = readFileSync(join(coreDirectory, '..', 'index.ts'), 'utf8');
    const specifiers = [...barrel.matchAll(/from '([^']+)'/g)].map((match) => match[1]!);
    expect(specifiers.length).toBeGreaterThan(10);
    for (const specifier of specifiers) {
      expect(specifier).toMatch(/^\.\/core\//);
      expect(specifier).not.toMatch(/_internal/);
    }
  });

  it('has no function longer than 120 lines', () => {
    const tooLong: string[] = [];
    for (const file of files) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, start) => {
        if (!/^\s*(export )?(async )?function\s/.test(line)) return;
        let depth = 0;
        let opened = false;
        for (let end = start; end < lines.length; end++) {
          depth += (lines[end]!.match(/\{/g)?.length ?? 0) - (lines[end]!.match(/\}/g)?.length ?? 0);
          opened ||= lines[end]!.includes('{');
          if (opened && depth <= 0) {
            if (end - start + 1 > MAX_FUNCTION_LINES)
              tooLong.push(`${relative(coreDirectory, file)}:${start + 1}`);
            return;
          }
        }
      });
    }
    expect(tooLong).toEqual([]);
  });
});

/** The house limit for one function in the core (CONVENTIONS.md). */
const MAX_FUNCTION_LINES = 120;
