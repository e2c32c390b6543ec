import type { ArchiveStore } from 'agent-compact';
import { createFileArchiveStore } from 'agent-compact/archive';

/**
 * The archive store of a session: the file store (append-only JSONL, fsync, 0600) in the session's
 * `archive/` directory, so `recall` still works after `--resume`.
 *
 * @example
 * const archive = createArchive(session.archiveDirectory);
 */
export function createArchive(directory: string): ArchiveStore {
  return createFileArchiveStore({ directory });
}
