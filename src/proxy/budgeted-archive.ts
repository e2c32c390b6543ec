/**
 * A session's in-memory archive that knows its size, for the proxy's memory budget: the JSON bytes
 * of the items it holds. When the budget evicts the session, the archive is emptied, so whoever
 * still holds it (the dashboard) holds nothing: a memory-only archive loses its items then, and a
 * recall or the dashboard finds none (`--archive DIR` or `--store` keep them).
 */
import type { ArchiveStore } from 'agent-compact';
import { createMemoryArchiveStore } from 'agent-compact';

/** An in-memory archive with its size and a way to empty it. */
export interface BudgetedArchive extends ArchiveStore {
  /** The JSON bytes of the items held. */
  readonly bytes: number;
  /** Drops every item. */
  clear(): void;
}

/** An empty in-memory archive; `onGrow` hears each put, after the size is updated. */
export function createBudgetedArchive(onGrow: () => void): BudgetedArchive {
  let store = createMemoryArchiveStore();
  let bytes = 0;
  return {
    specificationVersion: 'v1',
    get bytes() {
      return bytes;
    },
    clear() {
      store = createMemoryArchiveStore();
      bytes = 0;
    },
    async put(items, options) {
      await store.put(items, options);
      for (const item of items) bytes += JSON.stringify(item).length;
      onGrow();
    },
    get: (sessionId, id) => store.get(sessionId, id),
    list: (sessionId) => store.list(sessionId),
    sessions: () => store.sessions?.() ?? Promise.resolve([]),
  };
}
