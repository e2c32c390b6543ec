import { describe, expect, it } from 'vitest';
import { fullerPath, inDirectory, latestNameOf, sameFile } from './same-file.js';

describe('inDirectory', () => {
  it('resolves a relative path against an absolute directory', () => {
    expect(inDirectory('/repo', 'internal/a.go')).toBe('/repo/internal/a.go');
    expect(inDirectory('/repo/sub/', './../a.go')).toBe('/repo/a.go');
  });

  it('leaves an absolute path, or one without a usable directory, as it is', () => {
    expect(inDirectory('/repo', '/etc/hosts')).toBe('/etc/hosts');
    expect(inDirectory(undefined, 'a.go')).toBe('a.go');
    expect(inDirectory('repo', 'a.go')).toBe('a.go');
  });
});

describe('sameFile', () => {
  it.each([
    ['/repo/src/a.ts', '/repo/src/a.ts', true],
    ['/repo/src/a.ts', 'src/a.ts', true],
    ['./src/a.ts', '/repo/src/a.ts', true],
    ['/repo/src/a.ts', 'a.ts', false],
    ['/repo/src/a.ts', '../src/a.ts', false],
    ['/repo/xsrc/a.ts', 'src/a.ts', false],
    ['src/a.ts', 'lib/src/a.ts', false],
    ['./src/a.ts', 'src/a.ts', true],
    ['/a/src/a.ts', '/b/src/a.ts', false],
  ])('%s and %s: %s', (left, right, same) => {
    expect(sameFile(left, right)).toBe(same);
  });
});

describe('fullerPath', () => {
  it('keeps the absolute name', () => {
    expect(fullerPath('src/a.ts', '/repo/src/a.ts')).toBe('/repo/src/a.ts');
    expect(fullerPath('/repo/src/a.ts', 'src/a.ts')).toBe('/repo/src/a.ts');
  });
});

describe('latestNameOf', () => {
  it('gives the latest of the names that name the file, if any', () => {
    const names = ['/a/src/x.ts', 'lib/y.ts', '/b/src/x.ts'];
    expect(latestNameOf(names, 'src/x.ts')).toBe('/b/src/x.ts');
    expect(latestNameOf(names, '/c/lib/y.ts')).toBe('lib/y.ts');
    expect(latestNameOf(names, 'x.ts')).toBeUndefined();
  });
});
