import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const suitesDir = fileURLToPath(new URL('./suites/', import.meta.url));

describe('the benchmark suites', () => {
  // `npm run bench` imports every module of suites/ and calls its `run()`: a helper kept there
  // stops the whole run with a TypeError.
  it.each(readdirSync(suitesDir).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts')))(
    '%s exports run()',
    (file) => {
      expect(readFileSync(`${suitesDir}${file}`, 'utf8')).toMatch(
        /^export async function run\(\): Promise<void>/m,
      );
    },
  );

  // `npm run bench -- NAME…` runs only the suites named: a misspelt name ran nothing and exited 0.
  it('refuses a suite name it does not have, naming the suites it has, before running any', () => {
    const run = fileURLToPath(new URL('../../dist/bench/run.js', import.meta.url));
    const result = spawnSync(process.execPath, [run, 'tokens', 'survivals'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^bench: no suite named "survivals"; the suites: .*\bsurvival\b.*\btokens\b/,
    );
  });
});
