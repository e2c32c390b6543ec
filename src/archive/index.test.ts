import { appendFile, chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ArchiveItem } from '../core/archive/archive-store.js';
import { CompactError } from '../core/model/errors.js';
import { useTempDirs } from '../temp-dirs.test-utils.js';
import { createFileArchiveStore } from './index.js';

const item = (id: string, sessionId = 's1', text = `content ${id}`): ArchiveItem => ({
  id,
  sessionId,
  kind: 'tool-result',
  createdAt: 1,
  toolUseId: `toolu_${id}`,
  block: { type: 'tool_result', tool_use_id: `toolu_${id}`, content: text },
});

const madeDir = useTempDirs();
const tempDir = async () => madeDir('agent-compact-archive-');

describe('createFileArchiveStore', () => {
  it('appends items as JSONL, mode 0600, and reads them back in a new store', async () => {
    const directory = await tempDir();
    const store = createFileArchiveStore({ directory });
    await store.put([item('r1'), item('r2')]);
    await store.put([item('r3')]);
    const file = join(directory, 's1.jsonl');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(3);
    const reopened = createFileArchiveStore({ directory });
    expect((await reopened.list('s1')).map((entry) => entry.id)).toEqual(['r1', 'r2', 'r3']);
    expect(await reopened.get('s1', 'r2')).toEqual(item('r2'));
    expect(await reopened.get('s1', 'r9')).toBeUndefined();
  });

  it('writes nothing for a put whose signal aborted while it waited behind another write', async () => {
    const directory = await tempDir();
    const store = createFileArchiveStore({ directory });
    const controller = new AbortController();
    const first = store.put([item('r1')]);
    const second = store.put([item('r2')], { signal: controller.signal });
    // The compactor gave up on the second put before its turn came.
    controller.abort(new Error('timed out'));
    await first;
    await expect(second).rejects.toThrow('timed out');
    const reopened = createFileArchiveStore({ directory });
    expect((await reopened.list('s1')).map((entry) => entry.id)).toEqual(['r1']);
  });

  it('never rewrites what it wrote: earlier bytes stay a prefix of the file', async () => {
    const directory = await tempDir();
    const store = createFileArchiveStore({ directory });
    await store.put([item('r1')]);
    const before = await readFile(join(directory, 's1.jsonl'), 'utf8');
    await store.put([item('r2')]);
    expect((await readFile(join(directory, 's1.jsonl'), 'utf8')).startsWith(before)).toBe(true);
  });

  it('recovers from a half-written last line: skips it and appends on a fresh line', async () => {
    const directory = await tempDir();
    const file = join(directory, 's1.jsonl');
    await writeFile(file, `${JSON.stringify(item('r1'))}\n{"id":"r2","sessionId":"s1","kind":"tool-res`);
    const store = createFileArchiveStore({ directory });
    expect(await store.inspect('s1')).toEqual({ items: 1, truncatedTail: true });
    await store.put([item('r3')]);
    const reopened = createFileArchiveStore({ directory });
    expect((await reopened.list('s1')).map((entry) => entry.id)).toEqual(['r1', 'r3']);
    expect(await readFile(file, 'utf8')).toContain('"kind":"tool-res\n{"recovery"');
  });

  it('refuses a damaged line in the middle with a clear error instead of losing it', async () => {
    const directory = await tempDir();
    await writeFile(
      join(directory, 's1.jsonl'),
      `${JSON.stringify(item('r1'))}\nnot json\n${JSON.stringify(item('r2'))}\n`,
    );
    const error = await createFileArchiveStore({ directory })
      .list('s1')
      .catch((caught: unknown) => caught);
    expect(CompactError.isInstance(error) && error.code).toBe('ARCHIVE_FAILED');
    expect(String((error as Error).message)).toMatch(/line 2 is not valid JSON/);
  });

  it.skipIf(process.getuid?.() === 0)('reports permission denied as ARCHIVE_FAILED', async () => {
    const directory = await tempDir();
    await chmod(directory, 0o500);
    const error = await createFileArchiveStore({ directory })
      .put([item('r1')])
      .catch((caught: unknown) => caught);
    expect(CompactError.isInstance(error) && error.message).toMatch(/permission denied/);
  });

  it.skipIf(process.platform !== 'linux')(
    'reports a full disk (ENOSPC from /dev/full) as ARCHIVE_FAILED',
    async () => {
      const directory = await tempDir();
      const { symlink } = await import('node:fs/promises');
      const store = createFileArchiveStore({ directory });
      await store.list('s1'); // loads the (empty) session before the disk "fills up"
      await symlink('/dev/full', join(directory, 's1.jsonl'));
      const error = await store.put([item('r1')]).catch((caught: unknown) => caught);
      expect(CompactError.isInstance(error) && error.code).toBe('ARCHIVE_FAILED');
      expect((error as Error).message).toMatch(/the disk is full/);
      // Nothing was recorded as stored.
      expect(await store.get('s1', 'r1')).toBeUndefined();
    },
  );

  it('reports a write that fails (a folder where the file should be) as ARCHIVE_FAILED', async () => {
    const directory = await tempDir();
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(directory, 's1.jsonl'));
    const error = await createFileArchiveStore({ directory })
      .put([item('r1')])
      .catch((caught: unknown) => caught);
    expect(CompactError.isInstance(error) && error.code).toBe('ARCHIVE_FAILED');
  });

  it('keeps sessions apart under concurrent writes', async () => {
    const directory = await tempDir();
    const store = createFileArchiveStore({ directory, sync: false });
    await Promise.all(
      Array.from({ length: 50 }, (_, session) =>
        Promise.all(
          Array.from({ length: 5 }, (_, index) =>
            store.put([item(`r${index}`, `s${session}`, `s${session}-${index}`)]),
          ),
        ),
      ),
    );
    for (const session of [0, 17, 49]) {
      const items = await createFileArchiveStore({ directory }).list(`s${session}`);
      expect(items).toHaveLength(5);
      for (const entry of items) expect(JSON.stringify(entry.block)).toContain(`s${session}-`);
    }
  });

  it.each(['../escape', 'a/b', '', '.hidden'])('rejects the unsafe session id %j', async (sessionId) => {
    const store = createFileArchiveStore({ directory: await tempDir() });
    await expect(store.put([item('r1', sessionId)])).rejects.toThrow(/session id/);
  });

  it('finds what another store appended after it read the session (a proxy writing, mcp serving)', async () => {
    const directory = await tempDir();
    const writer = createFileArchiveStore({ directory, sync: false });
    const reader = createFileArchiveStore({ directory, sync: false });
    await writer.put([item('r1')]);
    expect((await reader.list('s1')).map((entry) => entry.id)).toEqual(['r1']);
    expect(await reader.get('s1', 'r2')).toBeUndefined();
    await writer.put([item('r2')]);
    expect(await reader.get('s1', 'r2')).toEqual(item('r2'));
    await writer.put([item('r3')]);
    expect((await reader.list('s1')).map((entry) => entry.id)).toEqual(['r1', 'r2', 'r3']);
    // Both append to one file: each then lists what the other wrote.
    await reader.put([item('r4')]);
    await writer.put([item('r5')]);
    expect((await reader.list('s1')).map((entry) => entry.id)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    expect((await writer.list('s1')).map((entry) => entry.id)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
  });

  it('lists a session another store started after this one found it empty', async () => {
    const directory = await tempDir();
    const reader = createFileArchiveStore({ directory, sync: false });
    expect(await reader.list('s1')).toEqual([]);
    await createFileArchiveStore({ directory, sync: false }).put([item('r1')]);
    expect((await reader.list('s1')).map((entry) => entry.id)).toEqual(['r1']);
  });

  it('lists as sessions only the files it could have written', async () => {
    const directory = await tempDir();
    const store = createFileArchiveStore({ directory });
    await store.put([item('r1'), item('r2', 's.2')]);
    for (const name of ['.hidden.jsonl', 'my notes.jsonl', 'notes.txt'])
      await writeFile(join(directory, name), '{}\n');
    expect((await store.sessions?.())?.sort()).toEqual(['s.2', 's1']);
  });

  it('appends to an existing file created by another writer', async () => {
    const directory = await tempDir();
    await appendFile(join(directory, 's1.jsonl'), `${JSON.stringify(item('r1'))}\n`);
    const store = createFileArchiveStore({ directory });
    await store.put([item('r2')]);
    expect((await store.list('s1')).map((entry) => entry.id)).toEqual(['r1', 'r2']);
  });
});

describe('createFileArchiveStore keeps only a bounded cache in memory', () => {
  it('reads items past its cache from their file, so what the file says is what it answers', async () => {
    const directory = await tempDir();
    // Room for about two items of 1 kB: the other 48 are not held in memory.
    const store = createFileArchiveStore({ directory, sync: false, cacheBytes: 2_500 });
    await store.put(Array.from({ length: 50 }, (_, index) => item(`r${index}`, 's1', 'x'.repeat(1_000))));
    // Each line rewritten in place with a same-length text: a store that kept the items in memory
    // would still answer the old text.
    const file = join(directory, 's1.jsonl');
    await writeFile(file, (await readFile(file, 'utf8')).replaceAll('x'.repeat(1_000), 'y'.repeat(1_000)));
    const first = await store.get('s1', 'r0');
    expect(first?.block).toMatchObject({ content: 'y'.repeat(1_000) });
    expect((await store.list('s1')).map((entry) => entry.id)).toEqual(
      Array.from({ length: 50 }, (_, index) => `r${index}`),
    );
    expect((await store.list('s1')).every((entry) => JSON.stringify(entry).includes('y'.repeat(1_000)))).toBe(
      true,
    );
  });

  it('finds an item again after another writer moved its line', async () => {
    const directory = await tempDir();
    const store = createFileArchiveStore({ directory, sync: false, cacheBytes: 1 });
    await store.put([item('r1'), item('r2')]);
    const file = join(directory, 's1.jsonl');
    // Another process rewrote the file with a line in front.
    await writeFile(file, `${JSON.stringify(item('r0'))}\n${await readFile(file, 'utf8')}`);
    expect((await store.get('s1', 'r2'))?.id).toBe('r2');
    expect((await store.list('s1')).map((entry) => entry.id)).toEqual(['r0', 'r1', 'r2']);
  });
});
