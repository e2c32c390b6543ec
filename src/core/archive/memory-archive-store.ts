import type { ArchiveItem, ArchiveStore } from './archive-store.js';

/**
 * An {@link ArchiveStore} kept in memory, one map per session. Items are deep-copied on the way in
 * and out so later changes to the caller's objects cannot alter the archive.
 *
 * @example
 * const archive = createMemoryArchiveStore();
 * const compactor = createCompactor({ archive });
 */
export function createMemoryArchiveStore(): ArchiveStore {
  const sessions = new Map<string, Map<string, ArchiveItem>>();
  return {
    specificationVersion: 'v1',
    async put(items) {
      for (const item of items) {
        let session = sessions.get(item.sessionId);
        if (!session) {
          session = new Map();
          sessions.set(item.sessionId, session);
        }
        session.set(item.id, structuredClone(item));
      }
    },
    async get(sessionId, id) {
      const item = sessions.get(sessionId)?.get(id);
      return item ? structuredClone(item) : undefined;
    },
    async list(sessionId) {
      return [...(sessions.get(sessionId)?.values() ?? [])].map((item) => structuredClone(item));
    },
    async sessions() {
      return [...sessions.keys()];
    },
  };
}
