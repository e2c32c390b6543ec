/**
 * Finds (or installs) `redis-server` for the Redis suites. Test-only (excluded from the build).
 *
 * The rule: in CI (`CI=true`) the suites run, never skip. Elsewhere a missing `redis-server` is
 * installed with apt-get when running as root on Debian/Ubuntu; otherwise the suites fail with one
 * line saying how to install it, or skip with that line when the developer opts out with
 * `AGENT_COMPACT_SKIP_REDIS=1`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { type RedisServer, type RedisServerOptions, startRedisServer } from '../testing/redis-server.js';

export const installHint =
  'redis-server not found: install it (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis), or set AGENT_COMPACT_SKIP_REDIS=1 to skip the Redis suites';

function onPath(binary: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' }).status === 0;
}

function tryInstall(): boolean {
  if (process.getuid?.() !== 0 || !onPath('apt-get')) return false;
  try {
    console.info('redis-server missing: installing it with apt-get (root)');
    execFileSync('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq redis-server'], {
      stdio: 'ignore',
      timeout: 300_000,
    });
  } catch {
    return false;
  }
  return onPath('redis-server');
}

function decide(): { skip: false } | { skip: true; reason: string } {
  if (onPath('redis-server') || tryInstall()) return { skip: false };
  const optedOut = process.env.AGENT_COMPACT_SKIP_REDIS === '1' && process.env.CI !== 'true';
  if (optedOut) {
    console.warn(installHint);
    return { skip: true, reason: installHint };
  }
  throw new Error(installHint);
}

/**
 * Whether the Redis suites skip (only on an explicit opt-out outside CI). Throws the one-line hint
 * when `redis-server` is missing and cannot be installed.
 */
export const skipRedis: boolean = decide().skip;

/** Starts a private `redis-server` for a suite (see {@link startRedisServer}). */
export function startTestRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  return startRedisServer(options);
}
