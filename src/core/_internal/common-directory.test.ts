import { describe, expect, it } from 'vitest';
import { commonDirectory } from './common-directory.js';

describe('commonDirectory', () => {
  it('is the directory the paths share, ending in a slash', () => {
    expect(commonDirectory(['/repo/src/a.ts', '/repo/src/b.ts', '/repo/test/c.ts'])).toBe('/repo/');
    expect(commonDirectory(['/repo/src/a.ts', '/repo/src/ab.ts'])).toBe('/repo/src/');
  });

  it('is empty for one path, and when only the root is shared (paths stay absolute)', () => {
    expect(commonDirectory(['/repo/src/a.ts'])).toBe('');
    expect(commonDirectory(['/Users/me/repo/a.go', '/tmp/check.go'])).toBe('');
    expect(commonDirectory(['src/a.ts', 'test/b.ts'])).toBe('');
  });
});
