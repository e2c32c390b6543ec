/**
 * Where the proxy keeps each conversation's state between requests. A small load/save contract so
 * a shared store (Redis) can replace the in-memory one for several proxy processes.
 */

import type { ProviderUsage } from 'agent-compact';
import { LRUCache } from 'lru-cache';

/** What the proxy remembers of one conversation: plain JSON. */
export interface ProxySessionState {
  /**
   * Fingerprint hashes of the client messages the last upstream conversation covered, in order;
   * empty while `sent` is absent.
   */
  covered: string[];
  /**
   * The conversation sent upstream last, without cache breakpoints, when compaction made it differ
   * from the client's; absent while the proxy sends the client's conversation as it is.
   */
  sent?: unknown[];
  /** The usage the provider reported for that request; anchors the next count. */
  usage?: ProviderUsage;
  /**
   * A random id of this history's lineage, new whenever the client's history stops extending what
   * the proxy saw: the session's archive and recall ids belong to one lineage, so only a caller who
   * sends that very history (which holds everything archived) reaches them. Absent in states kept
   * before lineages: their archive goes on under the session key alone.
   */
  lineage?: string;
  /**
   * How many items at the end of `sent` are recall rounds the client never saw and the answer it
   * got after them: the client sends that answer back as its own (one joined turn), and the proxy
   * puts these items in its place.
   */
  recalled?: number;
  /**
   * On a session key's first history only: the keys of the other histories kept under it, most
   * recent first (Claude Code's forked subagents, subagents given the same prompt), each kept as a
   * session of its own (`session-branches.ts`).
   */
  branches?: string[];
}

/** Loads and saves {@link ProxySessionState} per session key. */
export interface ProxySessionStore {
  readonly specificationVersion: 'v1';
  /** The state of a session, or `undefined` for a new one. */
  load(sessionKey: string): Promise<ProxySessionState | undefined>;
  /** Replaces the state of a session. */
  save(sessionKey: string, state: ProxySessionState): Promise<void>;
  /** Forgets a session. */
  delete(sessionKey: string): Promise<void>;
  /** How many sessions are kept, for the stats. */
  size(): Promise<number>;
}

/** Options of {@link createMemoryProxySessionStore}. */
export interface MemoryProxySessionStoreOptions {
  /**
   * The most sessions kept; the least recently used goes first.
   * @default 1000
   */
  maxSessions?: number;
}

/**
 * The default store: a map in this process, least recently used sessions dropped past `maxSessions`.
 *
 * @example
 * const store = createMemoryProxySessionStore({ maxSessions: 100 });
 */
export function createMemoryProxySessionStore({
  maxSessions = 1000,
}: MemoryProxySessionStoreOptions = {}): ProxySessionStore {
  // `get` marks a session most recently used; `set` past `max` drops the least recently used.
  const sessions = new LRUCache<string, ProxySessionState>({ max: maxSessions });
  return {
    specificationVersion: 'v1',
    async load(sessionKey) {
      return sessions.get(sessionKey);
    },
    async save(sessionKey, state) {
      sessions.set(sessionKey, state);
    },
    async delete(sessionKey) {
      sessions.delete(sessionKey);
    },
    async size() {
      return sessions.size;
    },
  };
}
