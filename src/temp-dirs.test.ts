/**
 * Tests leave nothing in /tmp: every test file that makes a temporary folder removes it, and the
 * helpers that make folders for tests remove theirs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipRedis, startTestRedis } from './redis/redis-server.test-utils.js';
import { useTempDirs } from './temp-dirs.test-utils.js';

const SOURCE = resolve(import.meta.dirname, '.');

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return /\.test(-utils)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('temporary folders of the tests', () => {
  it('every test file that makes one with mkdtemp removes it (or makes it with useTempDirs or removeDir)', () => {
    const leaking = testFiles(SOURCE)
      .filter((path) => {
        const text = readFileSync(path, 'utf8');
        return /\bmkdtemp(Sync)?\(/.test(text) && !/\b(rm|rmSync|removeDir)\(/.test(text);
      })
      .map((path) => relative(SOURCE, path));
    expect(leaking).toEqual([]);
  });
});

describe('useTempDirs', () => {
  const made: string[] = [];
  describe('a file that makes folders', () => {
    const tempDir = useTempDirs();
    it('makes them', () => {
      made.push(tempDir('agent-compact-temp-dirs-'), tempDir());
      expect(made.every((directory) => existsSync(directory))).toBe(true);
    });
  });
  it('has removed them once its tests are done', () => {
    expect(made).toHaveLength(2);
    expect(made.filter((directory) => existsSync(directory))).toEqual([]);
  });
});

describe.skipIf(skipRedis)('a test Redis restarted in the folder a stopped one kept', () => {
  it('removes the folder when it stops', async () => {
    const first = await startTestRedis();
    await first.stop({ keepData: true });
    expect(existsSync(first.directory)).toBe(true);
    const again = await startTestRedis({ port: first.port, directory: first.directory });
    await again.stop();
    expect(existsSync(first.directory)).toBe(false);
  });
});
