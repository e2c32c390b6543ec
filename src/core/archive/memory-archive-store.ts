import { copyData } from '../_internal/copy-data.js';
import type { ArchiveItem, ArchiveStore } from './archive-store.js';

/**
 * An {@link ArchiveStore} kept in memory, one map per session. Items are deep-copied on the way in
 * and out (`copyData`: their objects, not their strings) so later changes to the caller's objects
 * cannot alter the archive.
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
        session.set(item.id, copyData(item));
      }
    },
    async get(sessionId, id) {
      const item = sessions.get(sessionId)?.get(id);
      return item ? copyData(item) : undefined;
    },
    async list(sessionId) {
      return [...(sessions.get(sessionId)?.values() ?? [])].map((item) => copyData(item));
    },
    async sessions() {
      return [...sessions.keys()];
    },
  };
}
