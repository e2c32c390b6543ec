// Runs as an unprivileged user (the test spawns it with uid/gid 65534 when it runs as root, since
// root ignores file modes): compacts a conversation with the built file archive store in a folder
// it may not write, and prints what happened as one JSON line.
import { readFile } from 'node:fs/promises';

const [packagesUrl, directory, sessionId, inputFile, force] = process.argv.slice(2);
const { createCompactor } = await import(new URL('core/dist/index.js', packagesUrl).href);
const { createFileArchiveStore } = await import(new URL('core/dist/archive/index.js', packagesUrl).href);

const input = JSON.parse(await readFile(inputFile, 'utf8'));
const before = JSON.stringify(input);
const compactor = createCompactor({
  archive: createFileArchiveStore({ directory }),
  sessionId,
  thresholds: { mid: 1_000_000, hard: 2_000_000 },
  micro: { cacheAware: false },
});
try {
  const result = await compactor.maybeCompact(input, force ? { force } : {});
  console.log(JSON.stringify({ outcome: 'compacted', layer: result.layer, unchanged: JSON.stringify(input) === before }));
} catch (error) {
  console.log(
    JSON.stringify({
      outcome: 'error',
      name: error?.name,
      code: error?.code,
      message: error?.message,
      unchanged: JSON.stringify(input) === before,
    }),
  );
}
