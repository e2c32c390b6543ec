import type { ArchiveStore } from '../core/archive-store.js';
import { createMemoryArchiveStore } from '../core/memory-archive-store.js';

/** The archive store of a session directory. */
export function createArchive(_directory: string): ArchiveStore {
  return createMemoryArchiveStore();
}
