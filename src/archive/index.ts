import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { copyData } from '../core/_internal/copy-data.js';
import { type ArchiveItem, type ArchiveStore, groupItemsBySession } from '../core/archive/archive-store.js';
import { CompactError } from '../core/model/errors.js';

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
  /**
   * Bytes of items kept in memory, least recently read dropped first; every other item is read
   * from its file when asked for, so memory does not grow with the archive.
   * @default 8388608 (8 MiB)
   */
  cacheBytes?: number;
}

/** Items (by their JSON bytes) a file store keeps in memory unless told otherwise. */
const DEFAULT_CACHE_BYTES = 8 * 1024 * 1024;
const NEWLINE = 0x0a;

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

/** Where an item's line lies in its session's file. */
interface LineSpan {
  offset: number;
  length: number;
}

interface SessionState {
  /** Each item's line, in the order of the file (a repeated id keeps its first place, its last line). */
  items: Map<string, LineSpan>;
  /** The file ends in a partial line: the next append starts with a newline instead of rewriting it. */
  needsNewline: boolean;
  truncatedTail: boolean;
  /**
   * The file's size as far as this store has indexed it: a file of another size was written by
   * another store or process (a proxy appending while `agent-compact mcp` serves the folder), and is
   * indexed again before an id it does not know is called missing. -1 when unknown.
   */
  size: number;
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
  cacheBytes = DEFAULT_CACHE_BYTES,
}: FileArchiveStoreOptions): FileArchiveStore {
  const files = new SessionFiles(directory, sync, cacheBytes);
  const serialized = createSerializer();
  return {
    specificationVersion: 'v1',
    async put(items, options) {
      const bySession = groupItemsBySession(items);
      // A put queued behind a stuck write that the compactor gave up on writes nothing when its turn comes.
      const append = (sessionId: string, list: ArchiveItem[]) => {
        options?.signal?.throwIfAborted();
        return files.append(sessionId, list);
      };
      await Promise.all(
        [...bySession].map(([sessionId, list]) => serialized(sessionId, () => append(sessionId, list))),
      );
    },
    async get(sessionId, id) {
      const item = await files.item(sessionId, id);
      return item ? copyData(item) : undefined;
    },
    list: (sessionId) => files.items(sessionId),
    sessions: () => sessionsIn(directory),
    async inspect(sessionId) {
      const state = await files.load(sessionId);
      return { items: state.items.size, truncatedTail: state.truncatedTail };
    },
  };
}

/**
 * The session files of one folder: where each item's line lies (read once per session), and the
 * items recently written or read, in a cache of bounded bytes.
 */
class SessionFiles {
  readonly #sessions = new Map<string, Promise<SessionState>>();
  readonly #cache: ReturnType<typeof createItemCache>;
  #directoryReady: Promise<unknown> | undefined;

  constructor(
    readonly directory: string,
    readonly sync: boolean,
    cacheBytes: number,
  ) {
    this.#cache = createItemCache(Math.max(1, cacheBytes));
  }

  fileOf(sessionId: string): string {
    return join(this.directory, `${safeSessionId(sessionId)}.jsonl`);
  }

  load(sessionId: string): Promise<SessionState> {
    let state = this.#sessions.get(sessionId);
    if (!state) {
      state = readSession(this.fileOf(sessionId), sessionId);
      this.#sessions.set(sessionId, state);
      // A failed read must not stick: the next call tries again.
      state.catch(() => this.#sessions.delete(sessionId));
    }
    return state;
  }

  async append(sessionId: string, items: readonly ArchiveItem[]): Promise<void> {
    const state = await this.load(sessionId);
    await this.#ensureDirectory();
    const lines = items.map((item) => JSON.stringify(item));
    const prefix = state.needsNewline ? `\n${recoveryMarker}\n` : '';
    const text = `${prefix}${lines.join('\n')}\n`;
    let end: number;
    try {
      end = await appendText(this.fileOf(sessionId), text, this.sync);
    } catch (error) {
      // Part of the text may be on disk: start the next append on a fresh line so no item is glued to it.
      state.needsNewline = true;
      throw archiveError(`cannot append ${items.length} item(s) to ${this.fileOf(sessionId)}`, error);
    }
    state.needsNewline = false;
    const start = end - Buffer.byteLength(text);
    // Another writer appended since the file was indexed: its items are read on the next miss.
    state.size = start === state.size ? end : -1;
    let offset = start + Buffer.byteLength(prefix);
    for (const [index, item] of items.entries()) {
      const length = Buffer.byteLength(lines[index] as string);
      state.items.set(item.id, { offset, length });
      this.#cache.set(cacheKey(sessionId, item.id), copyData(item), Math.max(1, length));
      offset += length + 1;
    }
  }

  /** Every item of a session, read from its file at once; nothing of it stays in memory. */
  async items(sessionId: string, again = true): Promise<ArchiveItem[]> {
    const state = await this.load(sessionId);
    if (state.items.size === 0 && !(again && (await this.#resized(sessionId, state)))) return [];
    let bytes: Buffer;
    try {
      bytes = await readFile(this.fileOf(sessionId));
    } catch (error) {
      throw archiveError(`cannot read the archive ${this.fileOf(sessionId)}`, error);
    }
    if (bytes.length !== state.size && again) {
      // Another writer added to the file: index it again, so its items are listed too.
      this.#sessions.delete(sessionId);
      return this.items(sessionId, false);
    }
    const items: ArchiveItem[] = [];
    for (const [id, span] of state.items) {
      const item = itemAt(bytes, span, sessionId, id);
      if (item !== undefined) {
        items.push(item);
        continue;
      }
      if (!again) continue;
      // Another writer changed the file: read it again for where the items are now.
      this.#sessions.delete(sessionId);
      return this.items(sessionId, false);
    }
    return items;
  }

  /** One item, from the cache or from its line; the file read again once if its line moved. */
  async item(sessionId: string, id: string, again = true): Promise<ArchiveItem | undefined> {
    const state = await this.load(sessionId);
    const span = state.items.get(id);
    if (span === undefined) {
      // An id this store never saw may have been appended by another writer since it read the file.
      if (!again || !(await this.#resized(sessionId, state))) return undefined;
      this.#sessions.delete(sessionId);
      return this.item(sessionId, id, false);
    }
    const cached = this.#cache.get(cacheKey(sessionId, id));
    if (cached) return cached;
    const item = await readSpan(this.fileOf(sessionId), sessionId, id, span);
    if (item === undefined) {
      if (!again) return undefined;
      // Another writer changed the file: read it again for where the item is now.
      this.#sessions.delete(sessionId);
      return this.item(sessionId, id, false);
    }
    this.#cache.set(cacheKey(sessionId, id), item, Math.max(1, span.length));
    return item;
  }

  /** True when the session's file is no longer the size this store indexed (another writer added to it). */
  async #resized(sessionId: string, state: SessionState): Promise<boolean> {
    const size = await stat(this.fileOf(sessionId)).then(
      (stats) => stats.size,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return 0;
        throw archiveError(`cannot read the archive ${this.fileOf(sessionId)}`, error);
      },
    );
    return size !== state.size;
  }

  async #ensureDirectory(): Promise<void> {
    this.#directoryReady ??= mkdir(this.directory, { recursive: true, mode: 0o700 });
    await this.#directoryReady.catch((error: unknown) => {
      this.#directoryReady = undefined;
      throw archiveError(`cannot create the archive folder ${this.directory}`, error);
    });
  }
}

function cacheKey(sessionId: string, id: string): string {
  return `${sessionId}\n${id}`;
}

/** Runs each task after every earlier task of the same session; sessions run independently. */
function createSerializer() {
  const queues = new Map<string, Promise<unknown>>();
  return <T>(sessionId: string, task: () => Promise<T>): Promise<T> => {
    const next = (queues.get(sessionId) ?? Promise.resolve()).then(task, task);
    queues.set(
      sessionId,
      next.catch(() => {}),
    );
    return next;
  };
}

/** Appends `text` to `file` (created 0600), synced when asked; the file's size after it. */
async function appendText(file: string, text: string, sync: boolean): Promise<number> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
    await handle.writeFile(text, 'utf8');
    if (sync) await handle.sync();
    return (await handle.stat()).size;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/** The item at `span` of `file`, or undefined when the file no longer has it there. */
async function readSpan(
  file: string,
  sessionId: string,
  id: string,
  span: LineSpan,
): Promise<ArchiveItem | undefined> {
  const bytes = Buffer.alloc(span.length);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, constants.O_RDONLY);
    await handle.read(bytes, 0, span.length, span.offset);
  } catch (error) {
    throw archiveError(`cannot read the archive ${file}`, error);
  } finally {
    await handle?.close().catch(() => {});
  }
  return itemAt(bytes, { offset: 0, length: span.length }, sessionId, id);
}

/**
 * The sessions with a file in `directory` (none when it does not exist yet). Only names the store
 * could have written: another `.jsonl` in the folder (`.hidden.jsonl`, `my notes.jsonl`) is no
 * session, and listing it made every unscoped recall and search fail on its name.
 */
async function sessionsIn(directory: string): Promise<string[]> {
  const files = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw archiveError(`cannot list the archive ${directory}`, error);
  });
  return files
    .filter((file) => file.endsWith('.jsonl'))
    .map((file) => file.slice(0, -'.jsonl'.length))
    .filter(isSafeSessionId);
}

/** A session's file read: where each item lies. */
async function readSession(file: string, sessionId: string): Promise<SessionState> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { items: new Map(), needsNewline: false, truncatedTail: false, size: 0 };
    }
    throw archiveError(`cannot read the archive ${file}`, error);
  }
  const items = new Map<string, LineSpan>();
  const complete = bytes.length === 0 || bytes[bytes.length - 1] === NEWLINE;
  const spans = lineSpans(bytes);
  // The last span is a partial line left by a crash when the file does not end in a newline.
  const partial = complete ? undefined : spans.pop();
  let truncatedTail = false;
  const take = (item: ArchiveItem, span: LineSpan) => {
    if (item.sessionId !== sessionId || typeof item.id !== 'string') return;
    items.set(item.id, span);
  };
  if (partial && bytes.toString('utf8', partial.offset, partial.offset + partial.length).trim() !== '') {
    try {
      take(JSON.parse(lineText(bytes, partial)) as ArchiveItem, partial);
    } catch {
      truncatedTail = true;
    }
  }
  spans.forEach((span, index) => {
    const line = lineText(bytes, span);
    if (line.trim() === '') return;
    let item: ArchiveItem;
    try {
      item = JSON.parse(line) as ArchiveItem;
    } catch (error) {
      const next = spans[index + 1];
      if (next && lineText(bytes, next) === recoveryMarker) return;
      // A damaged line in the middle is not a crash artefact: refuse rather than lose it silently.
      throw new CompactError(`line ${index + 1} is not valid JSON; the archive is damaged`, {
        code: 'ARCHIVE_FAILED',
        path: file,
        cause: error,
      });
    }
    take(item, span);
  });
  return { items, needsNewline: !complete, truncatedTail, size: bytes.length };
}

/** The item of `id` at `span` of `bytes`, or undefined when another line is there now. */
function itemAt(bytes: Buffer, span: LineSpan, sessionId: string, id: string): ArchiveItem | undefined {
  try {
    const item = JSON.parse(lineText(bytes, span)) as ArchiveItem;
    return item.id === id && item.sessionId === sessionId ? item : undefined;
  } catch {
    return undefined;
  }
}

/** Each line of `bytes` (without its newline), in order; a last one without a newline included. */
function lineSpans(bytes: Buffer): LineSpan[] {
  const spans: LineSpan[] = [];
  let start = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(NEWLINE, start);
    const stop = end < 0 ? bytes.length : end;
    spans.push({ offset: start, length: stop - start });
    start = stop + 1;
  }
  return spans;
}

function lineText(bytes: Buffer, span: LineSpan): string {
  return bytes.toString('utf8', span.offset, span.offset + span.length);
}

/** A session id the store can name a file after. */
function isSafeSessionId(sessionId: string): boolean {
  return /^[A-Za-z0-9._-]{1,128}$/.test(sessionId) && !sessionId.startsWith('.');
}

function safeSessionId(sessionId: string): string {
  if (!isSafeSessionId(sessionId)) {
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

/**
 * Items by key within `maxBytes`, the least recently used dropped first: a Map keeps insertion
 * order, so a read moves an item to the end. Small enough to keep the file archive free of
 * runtime dependencies.
 */
function createItemCache(maxBytes: number) {
  const entries = new Map<string, { item: ArchiveItem; bytes: number }>();
  let total = 0;
  const remove = (key: string) => {
    const entry = entries.get(key);
    if (entry === undefined) return;
    entries.delete(key);
    total -= entry.bytes;
  };
  return {
    get(key: string): ArchiveItem | undefined {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.item;
    },
    set(key: string, item: ArchiveItem, bytes: number): void {
      remove(key);
      if (bytes > maxBytes) return;
      entries.set(key, { item, bytes });
      total += bytes;
      for (const oldest of entries.keys()) {
        if (total <= maxBytes) break;
        remove(oldest);
      }
    },
  };
}
