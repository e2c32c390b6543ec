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
});
