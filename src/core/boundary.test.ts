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
});
