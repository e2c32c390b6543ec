/**
 * Histories that share a session key: Claude Code's forked subagents inherit the main
 * conversation (its first message and its client session id), and subagents given the same prompt
 * start alike, so their requests carry one key. With one state per key each request of one
 * history restarted the other's (a new lineage, a new summary, a rewritten prefix every time);
 * instead each history gets a branch of its own, found by the history it extends.
 */
import { randomUUID } from 'node:crypto';
import type { WireFormat } from 'agent-compact/wire';
import { type SessionInput, sessionInput } from './session-history.js';
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
  for (const key of branches) {
    const state = await store.load(key);
    const input = sessionInput(state, client, isAnswerItem);
    if (state !== undefined && !input.restarted) return { key, state, input, restarted: false, carried: {} };
  }
  const key = `${sessionKey}${BRANCH_MARK}${randomUUID()}`;
  const kept = [key, ...branches];
  await store.save(sessionKey, { ...first!, branches: kept.slice(0, MAX_BRANCHES) });
  for (const forgotten of kept.slice(MAX_BRANCHES)) await store.delete(forgotten);
  const input = sessionInput(undefined, client, isAnswerItem);
  return { key, state: undefined, input, restarted: true, carried: {} };
}
