/**
 * What `npm pack` publishes: the package's `files` rules applied to a dist tree that has everything
 * the build emits (bench, e2e, reliability, tests, test utilities, fixtures), so the check does not
 * depend on a build having run. `npm run bench` and `npm run e2e` still run from dist/.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const scratch = mkdtempSync(join(tmpdir(), 'agent-compact-pack-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const EMITTED = [
  'dist/index.js',
  'dist/index.d.ts',
  'dist/cli/bin.js',
  'dist/tokenizer/index.js',
  'dist/bench/run.js',
  'dist/bench/suites/proxy.js',
  'dist/e2e/run.js',
  'dist/reliability/fleet.js',
  'dist/core/compactor.test.js',
  'dist/core/compactor.test.d.ts',
  'dist/cli/cli-io.test-utils.js',
  'dist/simulate/__fixtures__/run.json',
  'examples/quick-start.ts',
  'README.md',
];

/** The paths `npm pack --dry-run --json` lists for a package with our `files` and that tree. */
function packedFiles(): string[] {
  const { name, version, files, bin, main, types, exports } = manifest;
  writeFileSync(
    join(scratch, 'package.json'),
    JSON.stringify({ name, version, files, bin, main, types, exports }),
  );
  for (const path of EMITTED) {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), '');
  }
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: scratch,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'silent' },
  });
  return (JSON.parse(output) as [{ files: { path: string }[] }])[0].files.map((file) => file.path);
}

describe('the published files', () => {
  it('hold no bench, e2e, reliability, test or fixture files, and everything a user runs', () => {
    const files = packedFiles();
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cli/bin.js',
        'dist/tokenizer/index.js',
        'examples/quick-start.ts',
        'package.json',
      ]),
    );
    expect(
      files.filter((path) => /(^|\/)(bench|e2e|reliability|__fixtures__)\/|\.test(-utils)?\./.test(path)),
    ).toEqual([]);
  });

  it('still builds bench and e2e, which their scripts run from dist/', () => {
    const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));
    expect(build.exclude.join(' ')).not.toMatch(/bench|e2e/);
    expect(manifest.scripts.bench).toContain('dist/bench/run.js');
    expect(manifest.scripts.e2e).toContain('dist/e2e/run.js');
  });
});
