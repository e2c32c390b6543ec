// Runs every benchmark suite in ./suites (each module exports `run(): Promise<void>` and prints its
// own figures), or only those named on the command line: `npm run bench -- tokens`.
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const suitesDir = fileURLToPath(new URL('./suites/', import.meta.url));
const wanted = process.argv.slice(2);
const files = (await readdir(suitesDir)).filter((file) => file.endsWith('.js')).sort();
const names = files.map((file) => file.replace(/\.js$/, ''));
// A misspelt name would run nothing and look like success: say so before any suite runs.
const unknown = wanted.find((name) => !names.includes(name));
if (unknown !== undefined) {
  process.stderr.write(`bench: no suite named "${unknown}"; the suites: ${names.join(', ')}\n`);
  process.exit(2);
}
for (const file of files) {
  const name = file.replace(/\.js$/, '');
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n## ${name}\n`);
  const suite = (await import(new URL(`./suites/${file}`, import.meta.url).href)) as { run?: unknown };
  if (typeof suite.run !== 'function')
    throw new Error(`bench: suites/${file} exports no run(): only suites belong in suites/`);
  await suite.run();
}
