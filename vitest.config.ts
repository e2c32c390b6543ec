import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

// Three suites, one project each: `npm test` runs `unit`; the long ones have their own scripts
// (`npm run test:reliability`, `npm run test:browsers`) and `.ci/run` runs all three. A bare
// `vitest run` runs every project.
const reliability = ['src/reliability/**/*.test.ts'];
const browsers = ['src/**/*.browser.test.ts'];
// Only the long suites install the Debian packages they need (as root with apt-get, when missing).
const installPackages = './src/testing/debian-packages.test-utils.ts';
// The reliability tests' timeout guards against a hang, not speed: they start hundreds of processes
// (50 SIGKILLed workers per store, a fleet) and generate 10,000 conversations, which take minutes
// on an idle 2-core machine and several times as long on a loaded one.
const HANG_GUARD_MS = 30 * 60_000;

export default defineConfig({
  // Examples and README snippets import the package by name; tests run them against the source.
  resolve: {
    alias: [
      { find: /^agent-compact\/([a-z-]+)$/, replacement: source('$1/index.ts') },
      { find: /^agent-compact$/, replacement: source('index.ts') },
      // The packages beside the core: `@agent-compact/redis` is src/redis, and so on.
      { find: /^@agent-compact\/(redis|testing|proxy)$/, replacement: source('$1/index.ts') },
      { find: /^@agent-compact\/proxy\/otel$/, replacement: source('otel/index.ts') },
    ],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...reliability, ...browsers],
        },
      },
      {
        extends: true,
        test: {
          name: 'reliability',
          include: reliability,
          globalSetup: [installPackages],
          testTimeout: HANG_GUARD_MS,
          hookTimeout: HANG_GUARD_MS,
        },
      },
      { extends: true, test: { name: 'browsers', include: browsers, globalSetup: [installPackages] } },
    ],
  },
});
