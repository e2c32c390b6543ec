/**
 * The compactor a request's branch runs on, with the lineage its state is saved under. A new
 * branch that goes on from another history's compacted prefix first takes that history's archived
 * items; when the archive cannot give them, the branch starts over from the client's messages, as
 * one that parted inside a compaction does: a prefix naming items its own archive lacks could be
 * neither recalled nor rebuilt.
 */
import { randomUUID } from 'node:crypto';
import { type SessionBranch, startedOver } from './session-branches.js';
import type { SessionCompactor, SessionCompactors } from './session-compactors.js';
import type { BodyRead } from './session-state.js';
import type { ProxySessionState } from './session-store.js';

/** The branch as it goes on (started over when it could not inherit), its lineage and compactor. */
export interface OpenBranch {
  branch: SessionBranch;
  lineage: string | undefined;
  session: SessionCompactor;
}

/**
 * Opens `branch` of the request whose conversation is `client`, keeping the request's body `read`
 * as its session's last; `recall` as for `SessionCompactors.get`.
 */
export async function openBranch(
  compactors: SessionCompactors,
  branch: SessionBranch,
  client: unknown[],
  { read, recall }: { read: BodyRead; recall: boolean },
): Promise<OpenBranch> {
  const open = (opened: SessionBranch): OpenBranch => {
    const lineage = lineageOf(opened.state, opened.input.restarted);
    return { branch: opened, lineage, session: compactors.get(opened.key, lineage, recall) };
  };
  const opened = open(branch);
  compactors.remember(branch.key, read);
  if (branch.from === undefined || (await compactors.inherit(opened.session, branch.from))) return opened;
  return open(startedOver(branch, client));
}

/**
 * The lineage the request continues: the stored one while the client's history extends what the
 * proxy saw, a new one for a new or restarted history (see `ProxySessionState.lineage`).
 */
function lineageOf(state: ProxySessionState | undefined, restarted: boolean): string | undefined {
  if (state === undefined || restarted) return randomUUID();
  // A state kept before lineages had none: its archive goes on under the session key alone.
  return state.lineage;
}
