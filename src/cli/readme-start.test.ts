import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../lab/main.js';
import { recordingIO } from './cli-io.test-utils.js';

// The README shows what `npm start` prints: the block under its "npm start" is the stdout of the
// command package.json's `start` script runs, to the character. When a change moves a figure,
// paste the printed text (this test's diff shows it) into the README.
const root = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'agent-compact-readme-start-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The CLI arguments of the `start` script, its report written to the scratch folder instead. */
function startArgs(): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const command = scripts
    .start!.split('&&')
    .map((part) => part.trim())
    .find((part) => part.startsWith('node '));
  const [, bin, ...args] = command!.split(/\s+/);
  expect(bin).toBe('dist/lab/bin.js');
  const report = args.indexOf('--report');
  if (report >= 0) args[report + 1] = join(scratch, 'report.html');
  return args;
}

/** The fenced block that follows the README's `npm start` block. */
function readmeOutput(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('```sh\nnpm start\n```');
  expect(start).toBeGreaterThan(0);
  const match = /\n```\n([\s\S]*?)\n```\n/.exec(readme.slice(start + '```sh\nnpm start\n```'.length));
  return match![1]!;
}

describe('README: npm start', () => {
  it('shows what npm start prints', async () => {
    const { output, io } = recordingIO(root);
    expect(await main(startArgs(), io)).toBe(0);
    expect(output.stdout.trimEnd()).toBe(readmeOutput());
  });
});
