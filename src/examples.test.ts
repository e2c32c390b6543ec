import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { useTempDirs } from './temp-dirs.test-utils.js';

// The examples/ files the README and docs/ do not hold verbatim (those run in readme.test.ts): each runs
// against the source (vitest aliases `agent-compact/*` to src/) and prints what its
// `console.log(...); // …` comments say.
const root = resolve(import.meta.dirname, '..');
const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
const mastraNode = major > 22 || (major === 22 && minor >= 13);

const tempDir = useTempDirs();

const examples = [
  { file: 'examples/mcp.ts', runs: true },
  // Mastra 1.x needs Node 22.13 or later; CI runs the suite on Node 24 too.
  { file: 'examples/mastra.ts', runs: mastraNode },
];

describe('examples', () => {
  for (const { file, runs } of examples)
    it.skipIf(!runs)(`${file} runs and prints what its comments say`, async () => {
      const path = join(root, file);
      const expected = [...readFileSync(path, 'utf8').matchAll(/console\.log\(.*\);[ \t]*\/\/ (.+)$/gm)].map(
        (match) => match[1]!.trim(),
      );
      expect(expected.length).toBeGreaterThan(0);
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      // The folders an example makes in os.tmpdir() (an archive's) go where the tests remove them.
      vi.stubEnv('TMPDIR', tempDir('agent-compact-examples-'));
      try {
        await import(pathToFileURL(path).href);
        const printed = log.mock.calls.map((call) => call.map(String).join(' '));
        for (const text of expected) expect(printed).toContain(text);
      } finally {
        log.mockRestore();
        vi.unstubAllEnvs();
      }
    });
});
