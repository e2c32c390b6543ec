// The Redis benchmarks' server: a private redis-server (see startRedisServer), or a line saying why
// the Redis figures are missing when the binary is not installed.
import { type RedisServer, startRedisServer } from '../testing/redis-server.js';

/** Starts a private redis-server, or prints why not and returns undefined. */
export async function startBenchRedis(): Promise<RedisServer | undefined> {
  try {
    return await startRedisServer();
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).message.includes('ENOENT');
    console.log(
      missing
        ? 'redis: skipped, redis-server not found (Debian/Ubuntu: apt-get install -y redis-server)'
        : `redis: skipped, redis-server did not start: ${(error as Error).message}`,
    );
    return undefined;
  }
}

/** The value below which `fraction` of `values` fall (nearest rank). */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}
