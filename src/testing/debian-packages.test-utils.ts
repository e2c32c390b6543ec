/**
 * Vitest global setup: the suites start Debian's redis-server themselves and drive Debian's
 * Chromium and Firefox; on a fresh machine where we are root with apt-get, install what is missing
 * once before any test runs, so `npm ci` then `npm test` is all the set-up.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const needed: { binaries: string[]; pkg: string }[] = [
  { binaries: ['redis-server'], pkg: 'redis-server' },
  { binaries: ['chromium', 'chromium-browser'], pkg: 'chromium' },
  { binaries: ['firefox-esr', 'firefox'], pkg: 'firefox-esr' },
];

const onPath = (binary: string) =>
  (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(`${dir}/${binary}`));

export default function setup(): void {
  const missing = needed.filter(({ binaries }) => !binaries.some(onPath)).map(({ pkg }) => pkg);
  if (missing.length === 0) return;
  const canInstall = process.getuid?.() === 0 && onPath('apt-get');
  if (!canInstall) {
    console.warn(`missing Debian packages: ${missing.join(' ')} (apt-get install -y ${missing.join(' ')})`);
    return;
  }
  console.warn(`installing Debian packages the suites need: ${missing.join(' ')}`);
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', '-qq', ...missing], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (error) {
    console.warn(`could not install ${missing.join(' ')}: ${(error as Error).message.split('\n')[0]}`);
  }
}
