// One CLI command run for the large-input bench, in its own process so its peak memory is its own:
// `node dist/bench/large-input-child.js REPORT -- compact FILE -o OUT`. Runs the CLI's `main` as
// `bin.js` does (stdout discarded) and writes { exitCode, wallMs, cpuMs, maxRssBytes, liveHeapBytes }
// to REPORT.
import { writeFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { main } from '../cli/main.js';

// Peak RSS follows V8's heap growth, which lets garbage pile up between collections; the heap in use
// just after each full collection is what the command really holds. Its largest value, read when
// the observer runs (soon after the collection), is the live peak.
let liveHeapBytes = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      liveHeapBytes = Math.max(liveHeapBytes, process.memoryUsage().heapUsed);
    }
  }
});
observer.observe({ entryTypes: ['gc'] });

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
observer.disconnect();
writeFileSync(
  report,
  JSON.stringify({ exitCode, wallMs, cpuMs: (user + system) / 1000, maxRssBytes, liveHeapBytes }),
);
