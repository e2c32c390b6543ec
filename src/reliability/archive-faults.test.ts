/**
 * Archive storage faults through the compactor: a full disk, permission denied, a half-written
 * last line left by a crash, a damaged line, a store that fails to read or write. Each ends in a
 * clear `ARCHIVE_FAILED` error that leaves the caller's context as it was (maybeCompact throws
 * before it returns a compacted history) or in a recovery; the file store never rewrites what it
 * wrote (earlier bytes stay a prefix of the file); nothing is lost.
 */
import { execFile } from 'node:child_process';
import { appendFile, chmod, cp, mkdir, readFile, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileArchiveStore } from '../archive/index.js';
import type { ArchiveItem, ArchiveStore } from '../core/archive/archive-store.js';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { createCompactor } from '../core/compactor.js';
import type { CompactorOptions } from '../core/compactor-options.js';
import { agentSession } from '../core/conversation/session-builder.test-utils.js';
import { CompactError } from '../core/model/errors.js';
import {
  expectNothingLost,
  expectValidRequest,
  hasDist,
  packageRoot,
  removeDir,
  snapshotPackages,
  tempDir,
} from './reliability.test-utils.js';

const session = agentSession(10, { lines: 40 });
const layers = [
  { layer: 'micro', force: undefined },
  { layer: 'mid', force: 'mid' },
  { layer: 'hard', force: 'hard' },
] as const;

/** Micro masks every turn (no batching); mid and hard only when forced. */
const options = (archive: ArchiveStore, sessionId: string): CompactorOptions => ({
  archive,
  sessionId,
  thresholds: { mid: 1_000_000, hard: 2_000_000 },
  micro: { cacheAware: false },
});

const directories: string[] = [];
async function freshDir(): Promise<string> {
  const directory = await tempDir();
  directories.push(directory);
  return directory;
}
/** Folders a test made unwritable or unreadable, given back their modes before removal. */
const restoreModes: string[] = [];
afterAll(async () => {
  for (const directory of restoreModes) await chmod(directory, 0o700).catch(() => {});
  for (const directory of directories) {
    await chmod(directory, 0o700).catch(() => {});
    await removeDir(directory);
  }
});

async function rejection(promise: Promise<unknown>): Promise<CompactError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CompactError.isInstance(error)) throw new Error(`expected a CompactError, got ${String(error)}`);
  return error;
}

describe('archive storage faults through the compactor', () => {
  it.skipIf(process.platform !== 'linux').each(layers)(
    'disk full (ENOSPC) during $layer: ARCHIVE_FAILED, context unchanged, then recovers when space frees up',
    async ({ layer, force }) => {
      const directory = await freshDir();
      const file = join(directory, 's1.jsonl');
      const compactor = createCompactor(options(createFileArchiveStore({ directory }), 's1'));
      // Loads the (empty) session before the disk "fills up".
      expect((await compactor.maybeCompact(session.slice(0, 1))).layer).toBe('none');
      await symlink('/dev/full', file);

      const input = structuredClone(session);
      const error = await rejection(compactor.maybeCompact(input, force ? { force } : {}));
      expect(error.code).toBe('ARCHIVE_FAILED');
      expect(error.message).toMatch(/the context was left unchanged/);
      expect(String((error.cause as Error).message)).toMatch(/the disk is full/);
      expect(input).toEqual(session);

      // Space frees up: the same compactor compacts the same context and nothing is lost.
      await unlink(file);
      const result = await compactor.maybeCompact(input, force ? { force } : {});
      expect(result.layer).toBe(layer);
      expectValidRequest(result.messages);
      const reopened = createFileArchiveStore({ directory });
      await expectNothingLost(session, result.messages, reopened, 's1');
    },
  );

  it.each(layers)(
    'a store whose put fails (EIO) during $layer: ARCHIVE_FAILED with the cause, context unchanged, then recovers',
    async ({ layer, force }) => {
      const memory = createMemoryArchiveStore();
      let failures = 1;
      const flaky: ArchiveStore = {
        ...memory,
        specificationVersion: 'v1',
        async put(items: readonly ArchiveItem[]) {
          if (failures-- > 0) throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
          await memory.put(items);
        },
        get: (sessionId, id) => memory.get(sessionId, id),
        list: (sessionId) => memory.list(sessionId),
      };
      const compactor = createCompactor(options(flaky, 's1'));
      const input = structuredClone(session);
      const error = await rejection(compactor.maybeCompact(input, force ? { force } : {}));
      expect(error.code).toBe('ARCHIVE_FAILED');
      expect((error.cause as Error).message).toMatch(/EIO/);
      expect(input).toEqual(session);
      expect(await memory.list('s1')).toEqual([]);
      const result = await compactor.maybeCompact(input, force ? { force } : {});
      expect(result.layer).toBe(layer);
      await expectNothingLost(session, result.messages, memory, 's1');
    },
  );

  it('a store whose list fails once: ARCHIVE_FAILED, and the next call reads it again and compacts', async () => {
    const memory = createMemoryArchiveStore();
    let failures = 1;
    const flaky: ArchiveStore = {
      specificationVersion: 'v1',
      put: (items) => memory.put(items),
      get: (sessionId, id) => memory.get(sessionId, id),
      async list(sessionId) {
        if (failures-- > 0) throw new Error('ECONNRESET: the archive server went away');
        return memory.list(sessionId);
      },
    };
    const compactor = createCompactor(options(flaky, 's1'));
    const error = await rejection(compactor.maybeCompact(session));
    expect(error.code).toBe('ARCHIVE_FAILED');
    const result = await compactor.maybeCompact(session);
    expect(result.layer).toBe('micro');
    await expectNothingLost(session, result.messages, memory, 's1');
  });

  it('a half-written last line (crash during an append): the session resumes, appends on a fresh line, rewrites nothing and loses nothing', async () => {
    const directory = await freshDir();
    const file = join(directory, 's2.jsonl');
    const full = agentSession(16, { lines: 40 });
    const first = full.slice(0, 21);
    const compactor = createCompactor(options(createFileArchiveStore({ directory }), 's2'));
    const result = await compactor.maybeCompact(first);
    expect(result.layer).toBe('micro');

    // The process dies in the middle of the next append.
    const cut = JSON.stringify({
      id: 'r99',
      sessionId: 's2',
      kind: 'tool-result',
      createdAt: 1,
      block: { type: 'tool_result', tool_use_id: 'toolu_99', content: 'x'.repeat(200) },
    }).slice(0, 90);
    await appendFile(file, cut);
    const written = await readFile(file, 'utf8');

    const resumedStore = createFileArchiveStore({ directory });
    expect(await resumedStore.inspect('s2')).toMatchObject({ truncatedTail: true });
    const resumed = createCompactor(options(resumedStore, 's2'));
    const context = [...result.messages, ...full.slice(first.length)];
    const micro = await resumed.maybeCompact(context);
    expect(micro.layer).toBe('micro');
    const hard = await resumed.maybeCompact(micro.messages, { force: 'hard' });
    expect(hard.layer).toBe('hard');
    expectValidRequest(hard.messages);

    const after = await readFile(file, 'utf8');
    expect(after.startsWith(written)).toBe(true);
    // Ids never repeat across the restart.
    const ids = (await createFileArchiveStore({ directory }).list('s2')).map((item) => item.id);
    expect(new Set(ids).size).toBe(ids.length);
    await expectNothingLost(full, hard.messages, createFileArchiveStore({ directory }), 's2');
  });

  it('a damaged line in the middle: ARCHIVE_FAILED naming the line, context unchanged, the file untouched', async () => {
    const directory = await freshDir();
    const file = join(directory, 's3.jsonl');
    const compactor = createCompactor(options(createFileArchiveStore({ directory }), 's3'));
    await compactor.maybeCompact(session);
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.splice(1, 0, '{"id":"r5","sessionId":"s3","kin');
    await writeFile(file, lines.join('\n'));
    const damaged = await readFile(file, 'utf8');

    const input = structuredClone(session);
    const resumed = createCompactor(options(createFileArchiveStore({ directory }), 's3'));
    const error = await rejection(resumed.maybeCompact(input, { force: 'hard' }));
    expect(error.code).toBe('ARCHIVE_FAILED');
    expect(error.message).toMatch(/line 2 is not valid JSON/);
    expect(input).toEqual(session);
    expect(await readFile(file, 'utf8')).toBe(damaged);
  });

  it.skipIf(!hasDist || process.platform !== 'linux')(
    'permission denied (a child process as an unprivileged user, since root ignores file modes): ARCHIVE_FAILED, context unchanged, the file untouched',
    async () => {
      const directory = await freshDir();
      const inputFile = join(directory, 'input.json');
      await writeFile(inputFile, JSON.stringify(session));
      await chmod(directory, 0o755);
      // The worker and the package it runs, where the unprivileged user can read them.
      const packagesUrl = await snapshotPackages(directory);
      await cp(
        join(packageRoot, 'src/reliability/__fixtures__/permission-worker.mjs'),
        join(directory, 'permission-worker.mjs'),
      );
      // And the Node binary: one from the registry (CI's Node 24 run) sits inside the checkout,
      // which another user may not be able to enter.
      const asOtherUser = process.getuid?.() === 0;
      const node = asOtherUser ? join(directory, 'node') : process.execPath;
      if (asOtherUser) await cp(process.execPath, node);
      // A folder the worker may read but not write, holding a session file it may read but not append to.
      const readOnly = join(directory, 'read-only');
      await mkdir(readOnly, { mode: 0o755 });
      await createCompactor(options(createFileArchiveStore({ directory: readOnly }), 's4')).maybeCompact(
        session.slice(0, 11),
      );
      // Read-only for everyone (a non-root run owns these files; as root the worker is another user).
      await chmod(join(readOnly, 's4.jsonl'), 0o444);
      await chmod(readOnly, 0o555);
      const before = await readFile(join(readOnly, 's4.jsonl'), 'utf8');
      // A folder the worker may not even read.
      const unreadable = join(directory, 'unreadable');
      await mkdir(unreadable, { mode: 0o700 });
      await writeFile(join(unreadable, 's5.jsonl'), '', { mode: 0o600 });
      await chmod(unreadable, 0o000);
      restoreModes.push(readOnly, unreadable);

      const run = async (archiveDir: string, sessionId: string, force: string) => {
        const { stdout } = await promisify(execFile)(
          node,
          [join(directory, 'permission-worker.mjs'), packagesUrl, archiveDir, sessionId, inputFile, force],
          asOtherUser ? { uid: 65534, gid: 65534 } : {},
        );
        return JSON.parse(stdout) as { outcome: string; code?: string; message?: string; unchanged: boolean };
      };
      for (const force of ['', 'mid', 'hard']) {
        const write = await run(readOnly, 's4', force);
        expect(write).toMatchObject({ outcome: 'error', code: 'ARCHIVE_FAILED', unchanged: true });
        expect(write.message).toMatch(/the context was left unchanged/);
      }
      expect(await readFile(join(readOnly, 's4.jsonl'), 'utf8')).toBe(before);
      const read = await run(unreadable, 's5', 'hard');
      expect(read).toMatchObject({ outcome: 'error', code: 'ARCHIVE_FAILED', unchanged: true });
      expect(read.message).toMatch(/permission denied/);
    },
  );
});
