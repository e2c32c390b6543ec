/**
 * Shared helpers of the reliability suites: temp folders, the "nothing lost" check and the
 * "next request is valid" check. Test-only (excluded from the build).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { ArchiveStore } from '../core/archive/archive-store.js';
import { rebuildConversation } from '../core/archive/rebuild.js';
import { validateMessages } from '../core/conversation/validate.js';
import type { Message, SystemPrompt } from '../core/model/messages.js';

/** The package root (where `dist/` is built by `npm test` before vitest runs). */
export const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The built CLI, or undefined when `dist/` has not been built. */
export const builtBin = join(packageRoot, 'dist/lab/bin.js');

/** True when the built package is there (suites that spawn it skip with a reason otherwise). */
export const hasDist = existsSync(builtBin) && existsSync(join(packageRoot, 'dist/index.js'));

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
