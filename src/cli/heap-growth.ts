import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets its heap grow past what the last full collection kept, in percent. Left to
 * itself V8 grows it by up to 4× under a steady stream of requests, so a proxy that retains
 * 300 MiB sat at 550–630 MiB of RSS; at 40% the same traffic peaks at about 500 MiB, for a few
 * percent more CPU (`npm run bench -- memory`, BENCHMARKS.md section 13).
 */
export const HEAP_GROWING_PERCENT = 40;

const growthFlag = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * Makes V8 collect before it grows the heap far past what is live, so the resident set of a
 * long-running proxy follows its `--max-memory` budget. Process-wide, so only a command that owns
 * its process calls it (the bin's `processIO`), and never over a value the user gave Node.
 * Returns whether it set the flag.
 */
export function keepHeapNearLive(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = setFlagsFromString,
): boolean {
  if (execArgv.some((arg) => growthFlag.test(arg))) return false;
  setFlags(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
