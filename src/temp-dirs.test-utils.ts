/** Temporary folders a test file makes, removed once its tests are done so /tmp does not fill up. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Registers an `afterAll` that removes every folder the returned function made; call it once at
 * the top of a test file. Removed after all tests, not each, since `beforeAll` folders are shared.
 */
export function useTempDirs(): (prefix?: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
  });
  return (prefix = 'agent-compact-test-') => {
    const directory = mkdtempSync(join(tmpdir(), prefix));
    made.push(directory);
    return directory;
  };
}
