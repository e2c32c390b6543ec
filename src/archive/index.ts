import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ArchiveItem, type ArchiveStore, groupItemsBySession } from '../core/archive/archive-store.js';
import { CompactError } from '../core/errors.js';

// For a store of your own: split a `put` by session.
export { groupItemsBySession } from '../core/archive/archive-store.js';
export { originalText } from './original-text.js';

/** Options of {@link createFileArchiveStore}. */
export interface FileArchiveStoreOptions {
  /** The folder that holds one `<sessionId>.jsonl` file per session; created (0700) when missing. */
  directory: string;
  /**
   * `fsync` after every append, so an item is on disk before compaction removes it from the context.
   * @default true
   */
  sync?: boolean;
}

/** What the store found when it read a session file. */
export interface ArchiveFileReport {
  /** Items read. */
  items: number;
  /** True when the last line was cut short (a crash during a write) and was skipped. */
  truncatedTail: boolean;
}

/** A file archive store; {@link FileArchiveStore.inspect} tells what reading a session's file found. */
export interface FileArchiveStore extends ArchiveStore {
  inspect(sessionId: string): Promise<ArchiveFileReport>;
}

/** Written after a line a crash cut short, so a reader knows that line is an artefact, not damage. */
const recoveryMarker = JSON.stringify({
  recovery: 'the line above was cut short by a crash and is not an item',
});

interface SessionState {
  items: Map<string, ArchiveItem>;
  /** The file ends in a partial line: the next append starts with a newline instead of rewriting it. */
  needsNewline: boolean;
  truncatedTail: boolean;
}

/**
 * An append-only JSONL archive, one file per session, mode 0600. It never rewrites what it wrote:
 * a line half-written by a crash is skipped on reading and the next append starts on a fresh line.
 * Appends to one session are serialized; sessions write independently.
 *
 * @example
 * const archive = createFileArchiveStore({ directory: '.agent-compact/archive' });
 * const compactor = createCompactor({ archive, sessionId: 'task-42' });
 */
export function createFileArchiveStore({
  directory,
  sync = true,
}: FileArchiveStoreOptions): FileArchiveStore {
  const sessions = new Map<string, Promise<SessionState>>();
  const queues = new Map<string, Promise<unknown>>();
  let directoryReady: Promise<unknown> | undefined;

  const fileOf = (sessionId: string) => join(directory, `${safeSessionId(sessionId)}.jsonl`);

  function load(sessionId: string): Promise<SessionState> {
    let state = sessions.get(sessionId);
    if (!state) {
      state = readSession(fileOf(sessionId), sessionId);
      sessions.set(sessionId, state);
      // A failed read must not stick: the next call tries again.
      state.catch(() => sessions.delete(sessionId));
    }
    return state;
  }

  /** Runs `task` after every earlier task of the same session. */
  function serialized<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    const previous = queues.get(sessionId) ?? Promise.resolve();
    const next = previous.then(task, task);
    queues.set(
      sessionId,
      next.catch(() => {}),
    );
    return next;
  }

  async function append(sessionId: string, items: readonly ArchiveItem[]): Promise<void> {
    const state = await load(sessionId);
    directoryReady ??= mkdir(directory, { recursive: true, mode: 0o700 });
    await directoryReady.catch((error: unknown) => {
      directoryReady = undefined;
      throw archiveError(`cannot create the archive folder ${directory}`, error);
    });
    const lines = items.map((item) => JSON.stringify(item)).join('\n');
    const text = `${state.needsNewline ? `\n${recoveryMarker}\n` : ''}${lines}\n`;
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      handle = await open(
        fileOf(sessionId),
        constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
        0o600,
      );
      await handle.writeFile(text, 'utf8');
      if (sync) await handle.sync();
    } catch (error) {
      // Part of the text may be on disk: start the next append on a fresh line so no item is glued to it.
      state.needsNewline = true;
      throw archiveError(`cannot append ${items.length} item(s) to ${fileOf(sessionId)}`, error);
    } finally {
      await handle?.close().catch(() => {});
    }
    state.needsNewline = false;
    for (const item of items) state.items.set(item.id, structuredClone(item));
  }

  return {
    specificationVersion: 'v1',
    async put(items) {
      const bySession = groupItemsBySession(items);
      await Promise.all(
        [...bySession].map(([sessionId, list]) => serialized(sessionId, () => append(sessionId, list))),
      );
    },
    async get(sessionId, id) {
      const item = (await load(sessionId)).items.get(id);
      return item ? structuredClone(item) : undefined;
    },
    async list(sessionId) {
      return [...(await load(sessionId)).items.values()].map((item) => structuredClone(item));
    },
    async sessions() {
      const files = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [] as string[];
        throw archiveError(`cannot list the archive ${directory}`, error);
      });
      return files.filter((file) => file.endsWith('.jsonl')).map((file) => file.slice(0, -'.jsonl'.length));
    },
    async inspect(sessionId) {
      const state = await load(sessionId);
      return { items: state.items.size, truncatedTail: state.truncatedTail };
    },
  };
}

async function readSession(file: string, sessionId: string): Promise<SessionState> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { items: new Map(), needsNewline: false, truncatedTail: false };
    }
    throw archiveError(`cannot read the archive ${file}`, error);
  }
  const items = new Map<string, ArchiveItem>();
  const lines = text.split('\n');
  const complete = text.endsWith('\n') || text === '';
  // The last element is '' after a final newline, or a partial line left by a crash.
  const partial = lines.pop() ?? '';
  let truncatedTail = false;
  if (!complete && partial.trim() !== '') {
    try {
      const item = JSON.parse(partial) as ArchiveItem;
      if (item.sessionId === sessionId) items.set(item.id, item);
    } catch {
      truncatedTail = true;
    }
  }
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let item: ArchiveItem;
    try {
      item = JSON.parse(line) as ArchiveItem;
    } catch (error) {
      if (lines[index + 1] === recoveryMarker) return;
      // A damaged line in the middle is not a crash artefact: refuse rather than lose it silently.
      throw new CompactError(`line ${index + 1} is not valid JSON; the archive is damaged`, {
        code: 'ARCHIVE_FAILED',
        path: file,
        cause: error,
      });
    }
    if (item.sessionId === sessionId && typeof item.id === 'string') items.set(item.id, item);
  });
  return { items, needsNewline: !complete, truncatedTail };
}

function safeSessionId(sessionId: string): string {
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(sessionId) || sessionId.startsWith('.')) {
    throw new CompactError(
      `session id ${JSON.stringify(sessionId)} may only hold letters, digits, ".", "_" and "-"`,
      {
        code: 'INVALID_OPTIONS',
      },
    );
  }
  return sessionId;
}

function archiveError(message: string, error: unknown): CompactError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'ENOSPC'
      ? 'the disk is full'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : undefined;
  return new CompactError(reason ? `${message}: ${reason}` : message, {
    code: 'ARCHIVE_FAILED',
    cause: error,
  });
}
