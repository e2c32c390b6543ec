/**
 * Histories that share a session key: Claude Code's forked subagents inherit the main
 * conversation (its first message and its client session id), and subagents given the same prompt
 * start alike, so their requests carry one key. With one state per key each request of one
 * history restarted the other's (a new lineage, a new summary, a rewritten prefix every time);
 * instead each history gets a branch of its own, found by the history it extends.
 */
import { randomUUID } from 'node:crypto';
import type { WireFormat } from 'agent-compact/wire';
import { type SessionInput, sessionInput, sharedState } from './session-history.js';
import type { ProxySessionState, ProxySessionStore } from './session-store.js';
import { proxyWires } from './wire/proxy-wires.js';

/**
 * Branches kept beside a session's first history: the parallel forks or subagents of one
 * session; an older one is forgotten (its next request starts over, as every one did before).
 */
const MAX_BRANCHES = 8;

/** What a branch's key adds to its session key. */
const BRANCH_MARK = ':branch:';

/**
 * The session key a branch's key belongs to (a session key is its own): compactor events name the
 * branch, the records and the dashboard the client's session.
 */
export function rootSessionKey(key: string): string {
  const mark = key.lastIndexOf(BRANCH_MARK);
  return mark === -1 ? key : key.slice(0, mark);
}

/** The branch a request continues, or the new one it starts. */
export interface SessionBranch {
  /** The key its state and compactor are kept under: the session key for the first history. */
  key: string;
  state: ProxySessionState | undefined;
  input: SessionInput;
  /** True when the history extends none the proxy kept under the key (it starts a new branch). */
  restarted: boolean;
  /** What the state saved under `key` carries over: the first history's list of branches. */
  carried: Pick<ProxySessionState, 'branches'>;
  /**
   * For a new branch that goes on from another history's compacted prefix: that history's key and
   * lineage (whose archive holds the items the prefix names).
   */
  from?: { key: string; lineage: string | undefined };
}

/**
 * The branch of `sessionKey` whose history the `client` conversation extends; a new one (listed on
 * the first history's state) when none does.
 */
export async function loadBranch(
  store: ProxySessionStore,
  sessionKey: string,
  api: WireFormat,
  client: unknown[],
): Promise<SessionBranch> {
  const { isAnswerItem } = proxyWires[api].recall;
  const first = await store.load(sessionKey);
  const carried = first?.branches ? { branches: first.branches } : {};
  const firstInput = sessionInput(first, client, isAnswerItem);
  if (!firstInput.restarted)
    return { key: sessionKey, state: first, input: firstInput, restarted: false, carried };
  const branches = first?.branches ?? [];
  const kept: { key: string; state: ProxySessionState | undefined }[] = [{ key: sessionKey, state: first }];
  for (const key of branches) {
    const state = await store.load(key);
    const input = sessionInput(state, client, isAnswerItem);
    if (state !== undefined && !input.restarted) return { key, state, input, restarted: false, carried: {} };
    kept.push({ key, state });
  }
  const key = `${sessionKey}${BRANCH_MARK}${randomUUID()}`;
  const listed = [key, ...branches];
  await store.save(sessionKey, { ...first!, branches: listed.slice(0, MAX_BRANCHES) });
  for (const forgotten of listed.slice(MAX_BRANCHES)) await store.delete(forgotten);
  const parted = partedFrom(kept, firstInput.fingerprints());
  if (parted === undefined) return startedOver({ key }, client);
  // A new lineage: the branch's archive is its own, holding what it inherits (`SessionCompactors.inherit`).
  const state: ProxySessionState = { ...parted.shared, lineage: randomUUID() };
  const from = { key: parted.key, lineage: parted.state.lineage };
  return {
    key,
    state,
    input: sessionInput(state, client, isAnswerItem),
    restarted: false,
    carried: {},
    from,
  };
}

/** The branch `key` with no state: the client's messages go on as they came, as a new history. */
export function startedOver({ key }: Pick<SessionBranch, 'key'>, client: unknown[]): SessionBranch {
  return { key, state: undefined, input: sessionInput(undefined, client), restarted: true, carried: {} };
}

/**
 * The kept history the client's shares most messages with, when it parted from it after that
 * history's last compaction (a fork going on from its parent's compacted prefix, or the parent
 * after its forks), so the new branch needs no compaction of its own to start.
 */
function partedFrom(
  kept: readonly { key: string; state: ProxySessionState | undefined }[],
  fingerprints: readonly string[],
):
  | { key: string; state: ProxySessionState; shared: Pick<ProxySessionState, 'covered' | 'sent'> }
  | undefined {
  let best: ReturnType<typeof partedFrom>;
  for (const { key, state } of kept) {
    const shared = sharedState(state, fingerprints);
    if (shared && state && shared.covered.length > (best?.shared.covered.length ?? 0))
      best = { key, state, shared };
  }
  return best;
}
