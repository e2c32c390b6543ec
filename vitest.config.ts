import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  // Examples and README snippets import the package by name; tests run them against the source.
  resolve: {
    alias: [
      { find: /^agent-compact\/([a-z-]+)$/, replacement: source('$1/index.ts') },
      { find: /^agent-compact$/, replacement: source('index.ts') },
    ],
  },
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['./src/testing/debian-packages.test-utils.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
