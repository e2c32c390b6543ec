// One CLI command run for the large-input bench, in its own process so its peak memory is its own:
// `node dist/bench/large-input-child.js REPORT -- compact FILE -o OUT`. Runs the CLI's `main` as
// `bin.js` does (stdout discarded) and writes { exitCode, wallMs, cpuMs, maxRssBytes } to REPORT.
import { writeFileSync } from 'node:fs';
import { main } from '../cli/main.js';

const [report, separator, ...args] = process.argv.slice(2);
if (report === undefined || separator !== '--')
  throw new Error('usage: large-input-child.js REPORT -- ARGS…');
const started = performance.now();
const exitCode = await main(args, {
  stdout: () => {},
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  isTTY: false,
});
const wallMs = performance.now() - started;
const { user, system } = process.cpuUsage();
// resourceUsage().maxRSS is in kilobytes: the process's peak resident memory, startup included.
const maxRssBytes = process.resourceUsage().maxRSS * 1024;
writeFileSync(report, JSON.stringify({ exitCode, wallMs, cpuMs: (user + system) / 1000, maxRssBytes }));
