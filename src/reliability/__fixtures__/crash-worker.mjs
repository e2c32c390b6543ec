// A child process for the crash suite: grows a deterministic agent session turn by turn, compacting
// with the BUILT packages (packages/core/dist, packages/redis/dist) and archiving to the file store, until it is killed (SIGKILL at a
// random point) or reaches `maxTurns`. After each turn it persists its context atomically (write a
// temp file, fsync, rename), so a new process resumes from the last completed turn.
//
//   node crash-worker.mjs PACKAGES_URL DIRECTORY SESSION_ID MAX_TURNS [REDIS_URL]
//
// With REDIS_URL the archive is the Redis store (prefix `crash:`) instead of DIRECTORY/archive.
import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { crashSessionTurn } from './crash-session.mjs';

const [packagesUrl, directory, sessionId, maxTurnsArg, redisUrl] = process.argv.slice(2);
const maxTurns = Number(maxTurnsArg);
const { createCompactor } = await import(new URL('core/dist/index.js', packagesUrl).href);
const { createFileArchiveStore } = await import(new URL('core/dist/archive/index.js', packagesUrl).href);
const { createRedisArchiveStore } = redisUrl
  ? await import(new URL('redis/dist/index.js', packagesUrl).href)
  : {};

const contextFile = join(directory, 'context.json');
let state = { turns: -1, messages: [] };
try {
  state = JSON.parse(await readFile(contextFile, 'utf8'));
} catch (error) {
  if (error.code !== 'ENOENT') throw error;
}

const compactor = createCompactor({
  archive: redisUrl
    ? createRedisArchiveStore({ url: redisUrl, prefix: 'crash:' })
    : createFileArchiveStore({ directory: join(directory, 'archive') }),
  sessionId,
  thresholds: { mid: 4000, hard: 8000 },
  micro: { cacheAware: false, keepTurns: 2 },
});

/** Replaces the context file atomically: a kill leaves either the old or the new one. */
async function persist(value) {
  const temp = `${contextFile}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(JSON.stringify(value), 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, contextFile);
}

process.stdout.write(`ready ${state.turns}\n`);
for (let turn = state.turns + 1; turn <= maxTurns; turn++) {
  const messages = [...state.messages, ...crashSessionTurn(turn)];
  const result = await compactor.maybeCompact(messages, turn % 13 === 0 ? { force: 'hard' } : {});
  state = { turns: turn, messages: result.messages };
  await persist(state);
  process.stdout.write(`turn ${turn} ${result.layer}\n`);
}
process.stdout.write('done\n');
// The Redis client keeps the process alive until closed.
process.exit(0);
