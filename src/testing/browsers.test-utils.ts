/** Debian's browsers for the tests that render a page: found where the packages put them. */
import { stat } from 'node:fs/promises';

const candidates = {
  chromium: { paths: ['/usr/bin/chromium', '/usr/bin/chromium-browser'], pkg: 'chromium' },
  firefox: { paths: ['/usr/bin/firefox-esr', '/usr/bin/firefox'], pkg: 'firefox-esr' },
};

/** The browser's binary, or undefined when it is not installed. */
export async function findBrowser(kind: keyof typeof candidates): Promise<string | undefined> {
  for (const path of candidates[kind].paths) {
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  return undefined;
}

/**
 * Whether a suite needing `kind` should skip: only outside CI, with one line saying how to get it.
 * In CI `.ci/run` installs the browsers, so a missing one fails the suite instead.
 */
export function skipWithout(
  kind: keyof typeof candidates,
  binary: string | undefined,
  suite: string,
): boolean {
  if (binary || process.env.CI) return false;
  console.warn(
    `${suite} skipped: no ${kind} (apt-get install -y ${candidates[kind].pkg}; .ci/run installs it)`,
  );
  return true;
}

/** The binary, or an error naming the package, for a suite that runs in CI without it. */
export function required(kind: keyof typeof candidates, binary: string | undefined): string {
  if (!binary) throw new Error(`no ${kind}: apt-get install -y ${candidates[kind].pkg}`);
  return binary;
}
