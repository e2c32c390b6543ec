/**
 * Vitest global setup of the long suites (see vitest.config.ts): the reliability suite starts
 * Debian's redis-server and the browser suite drives Debian's Chromium and Firefox. On a machine
 * where we are root with apt-get, install what the suite being run needs, once before its tests;
 * elsewhere say in one line how to get it. The unit run (`npm test`) never installs anything: its
 * Redis tests skip outside CI when redis-server is missing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

interface DebianPackage {
  binaries: string[];
  pkg: string;
}

const redis: DebianPackage = { binaries: ['redis-server'], pkg: 'redis-server' };
const chromium: DebianPackage = { binaries: ['chromium', 'chromium-browser'], pkg: 'chromium' };
const firefox: DebianPackage = { binaries: ['firefox-esr', 'firefox'], pkg: 'firefox-esr' };

/** What each vitest project needs; a project not listed needs nothing. */
const neededBy: Record<string, DebianPackage[]> = {
  reliability: [redis],
  browsers: [chromium, firefox],
};

const onPath = (binary: string) =>
  (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(`${dir}/${binary}`));

export default function setup(project: { name: string }): void {
  const needed = neededBy[project.name] ?? [];
  const missing = needed.filter(({ binaries }) => !binaries.some(onPath)).map(({ pkg }) => pkg);
  if (missing.length === 0) return;
  const canInstall = process.getuid?.() === 0 && onPath('apt-get');
  if (!canInstall) {
    console.warn(`missing Debian packages: ${missing.join(' ')} (apt-get install -y ${missing.join(' ')})`);
    return;
  }
  console.warn(`installing Debian packages the ${project.name} suite needs: ${missing.join(' ')}`);
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
