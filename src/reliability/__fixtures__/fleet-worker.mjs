// A worker of the fleet suite: serves compaction turns of any session from one shared Redis, with the
// BUILT packages (packages/*/dist). Reads one JSON request per line on stdin, answers one JSON line on stdout:
//   { "id": 1, "sessionId": "s1", "messages": [...], "system": "...", "usage": {...} }
//   -> { "id": 1, "messages": [...], "layer": "micro" }  or  { "id": 1, "error": "..." }
//
//   node fleet-worker.mjs PACKAGES_URL REDIS_URL PREFIX
import { createInterface } from 'node:readline';

const [packagesUrl, redisUrl, prefix] = process.argv.slice(2);
const { createSharedCompactor } = await import(new URL('redis/dist/index.js', packagesUrl).href);

const shared = createSharedCompactor({
  url: redisUrl,
  prefix,
  // Short, so a killed worker's sessions are free again quickly.
  leaseMs: 1000,
  compactor: { thresholds: { mid: 1500, hard: 3000 }, micro: { cacheAware: false }, hard: { retryDelayMs: 0 } },
});

const answer = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
createInterface({ input: process.stdin }).on('line', async (line) => {
  const { id, sessionId, messages, system, usage } = JSON.parse(line);
  try {
    const result = await shared.maybeCompact(sessionId, messages, { system, ...(usage ? { usage } : {}) });
    answer({ id, messages: result.messages, layer: result.layer });
  } catch (error) {
    answer({ id, error: `${error?.message ?? error}${error?.cause ? ` (cause: ${error.cause.message})` : ""}` });
  }
});
process.stdin.on('end', async () => {
  await shared.close();
  process.exit(0);
});
answer({ ready: true });
