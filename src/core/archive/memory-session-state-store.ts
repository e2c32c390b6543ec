import { CompactError } from '../errors.js';
import type { CompactorState, SessionStateStore, StoredSessionState } from './session-state-store.js';

/**
 * A {@link SessionStateStore} in memory: for tests, and for several compactors of one process that
 * hand a session to each other. States are copied through JSON in both directions, as a real store
 * would, so a caller can never change a stored state by accident.
 *
 * @example
 * const stateStore = createMemorySessionStateStore();
 * const compactor = createCompactor({ sessionId: 'session-1', archive, stateStore });
 */
export function createMemorySessionStateStore(): SessionStateStore {
  const states = new Map<string, string>();
  return {
    specificationVersion: 'v1',
    async load(sessionId) {
      const stored = states.get(sessionId);
      return stored === undefined ? undefined : (JSON.parse(stored) as StoredSessionState);
    },
    async save(sessionId, state: CompactorState, { expectedVersion }) {
      const stored = states.get(sessionId);
      const version = stored === undefined ? 0 : (JSON.parse(stored) as StoredSessionState).version;
      if (version !== expectedVersion) {
        throw new CompactError(
          `session ${sessionId}: state version is ${version}, expected ${expectedVersion}; another compactor saved it first`,
          { code: 'STATE_CONFLICT' },
        );
      }
      const next: StoredSessionState = { version: version + 1, state };
      states.set(sessionId, JSON.stringify(next));
      return { version: next.version };
    },
  };
}
