/**
 * What the proxy command charges its entries against, out of `--max-memory`, so that the process's
 * RSS grows by no more than the budget. Node and V8 add memory no entry is charged for, whatever
 * the budget: V8's young generation (two semi-spaces growing to 16 MiB each), the old
 * generation's headroom past what is live, code, the allocator's arenas. Measured with
 * `npm run bench -- memory` (3,000 sessions, 10 stalled subscribers): the RSS grew by about 76 MiB
 * plus 0.63 bytes per byte of the budget the proxy charged against (+106, +116, +166 and +424 MiB at
 * 48, 64, 128 and 512 MiB charged; BENCHMARKS.md section 13). Charges overstate what is retained
 * (parsed JSON at twice its bytes), which covers that overhead at the default 512 MiB, not at small
 * budgets.
 */

/** What Node and V8 add to the RSS past the charged entries, with room for run-to-run variance. */
export const RUNTIME_OVERHEAD_BYTES = 96 * 1024 * 1024;

/** RSS growth per charged byte, rounded up from the measured 0.63. */
export const RSS_PER_CHARGED_BYTE = 2 / 3;

/**
 * The least share of `--max-memory` charged against: under about 120 MiB the overhead alone passes
 * the budget, and a proxy with nothing to hold would recompact every request.
 */
export const MIN_CHARGED_SHARE = 1 / 4;

/**
 * The bytes the command's proxy charges against under a `--max-memory` of `maxMemoryBytes`: all of
 * it from 288 MiB up, less below (48 MiB of 128), never under a quarter of it.
 */
export function chargedMemoryBytes(maxMemoryBytes: number): number {
  const fits = (maxMemoryBytes - RUNTIME_OVERHEAD_BYTES) / RSS_PER_CHARGED_BYTE;
  const floor = maxMemoryBytes * MIN_CHARGED_SHARE;
  return Math.floor(Math.min(maxMemoryBytes, Math.max(floor, fits)));
}
