/**
 * Finds `redis-server` for the Redis suites. Test-only (excluded from the build).
 *
 * The rule: in CI (`CI` set) the suites run, never skip, and a missing `redis-server` fails them
 * (`.ci/run` installs it). Elsewhere a missing one skips them with one line saying how to install
 * it, so `npm test` passes on a fresh clone without root. `npm run test:reliability` installs it
 * first when run as root with apt-get (its global setup, src/testing/debian-packages.test-utils.ts).
 */
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { type RedisServer, type RedisServerOptions, startRedisServer } from '../testing/redis-server.js';

const howToInstall =
  'Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis; .ci/run installs it';
export const installHint = `redis-server not found: the Redis suites skip (${howToInstall})`;

function onPath(binary: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' }).status === 0;
}

function decide(): { skip: false } | { skip: true; reason: string } {
  if (onPath('redis-server')) return { skip: false };
  if (process.env.CI)
    throw new Error(`redis-server not found, and in CI the Redis suites never skip (${howToInstall})`);
  console.warn(installHint);
  return { skip: true, reason: installHint };
}

/**
 * Whether the Redis suites skip (`redis-server` missing outside CI). Throws the one-line hint in CI
 * when it is missing.
 */
export const skipRedis: boolean = decide().skip;

/**
 * Starts a private `redis-server` for a suite (see {@link startRedisServer}). One restarted in the
 * folder a stopped server kept (`stop({ keepData: true })`) removes that folder when it stops: the
 * first server's own `stop` no longer can, and the folder was left in /tmp.
 */
export async function startTestRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const server = await startRedisServer(options);
  const { directory } = options;
  if (directory === undefined) return server;
  return {
    ...server,
    async stop(stopOptions) {
      await server.stop(stopOptions);
      if (!stopOptions?.keepData) await rm(directory, { recursive: true, force: true });
    },
  };
}
