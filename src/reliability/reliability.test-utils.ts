/**
 * Shared helpers of the reliability suites: temp folders, the "nothing lost" check and the
 * "next request is valid" check. Test-only (excluded from the build).
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import type { ArchiveStore } from '../core/archive/archive-store.js';
import { rebuildConversation } from '../core/archive/rebuild.js';
import { validateMessages } from '../core/conversation/validate.js';
import type { Message, SystemPrompt } from '../core/model/messages.js';

/** The package root (where `dist/` is built by `npm test` before vitest runs). */
export const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The built CLI, or undefined when `dist/` has not been built. */
export const builtBin = join(packageRoot, 'dist/lab/bin.js');

/** The built packages' folder: `core/dist/` (the library), `redis/dist/` (its Redis stores). */
export const builtPackages = join(packageRoot, 'packages');

/** True when the packages are built (suites that spawn them skip with a reason otherwise). */
export const hasDist =
  existsSync(builtBin) &&
  existsSync(join(builtPackages, 'core/dist/index.js')) &&
  existsSync(join(builtPackages, 'redis/dist/index.js'));

/**
 * Copies the built core and Redis packages into `directory` (as `packages/<name>/dist`), so every
 * process of a suite runs the same build even if it is rebuilt meanwhile; returns the folder's URL
 * the workers take. The copies resolve their dependencies from the repository's node_modules.
 */
export async function snapshotPackages(directory: string): Promise<string> {
  for (const name of ['core', 'redis'])
    await cp(join(builtPackages, name, 'dist'), join(directory, 'packages', name, 'dist'), {
      recursive: true,
    });
  await writeFile(join(directory, 'packages', 'package.json'), '{ "type": "module" }\n');
  await symlink(join(packageRoot, 'node_modules'), join(directory, 'node_modules'));
  return pathToFileURL(join(directory, 'packages/')).href;
}

/** A fresh temp folder; remove it with {@link removeDir}. */
export function tempDir(prefix = 'agent-compact-reliability-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Removes a temp folder, ignoring errors. */
export async function removeDir(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true }).catch(() => {});
}

/** Asserts the provider would accept `messages` as the agent's next request. */
export function expectValidRequest(messages: readonly Message[], system?: SystemPrompt): void {
  expect(validateMessages(messages, system === undefined ? {} : { system })).toEqual([]);
}

/** Asserts the original conversation rebuilds from the compacted one plus the session's archive. */
export async function expectNothingLost(
  original: readonly Message[],
  output: readonly Message[],
  archive: ArchiveStore,
  sessionId: string,
): Promise<void> {
  expect(rebuildConversation(output, await archive.list(sessionId))).toEqual(original);
}

/** How long `task` takes, in milliseconds, with its result or error. */
export async function timed<T>(
  task: () => Promise<T> | T,
): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await task();
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

/** mulberry32: a small seeded generator, so a failing run replays from its printed seed. */
export function random(state: number): () => number {
  let value = state >>> 0;
  return () => {
    value = (value + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(value ^ (value >>> 15), 1 | value);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}
