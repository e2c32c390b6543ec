import { CompactError } from '../model/errors.js';
import type { CompactorState, SessionStateStore } from './session-state-store.js';

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
  // The version is kept beside the JSON so a save reads it without parsing the whole state.
  const states = new Map<string, { version: number; json: string }>();
  return {
    specificationVersion: 'v1',
    async load(sessionId) {
      const stored = states.get(sessionId);
      if (stored === undefined) return undefined;
      return { version: stored.version, state: JSON.parse(stored.json) as CompactorState };
    },
    async save(sessionId, state: CompactorState, { expectedVersion }) {
      const version = states.get(sessionId)?.version ?? 0;
      if (version !== expectedVersion) {
        throw new CompactError(
          `session ${sessionId}: state version is ${version}, expected ${expectedVersion}; another compactor saved it first`,
          { code: 'STATE_CONFLICT' },
        );
      }
      const next = { version: version + 1, json: JSON.stringify(state) };
      states.set(sessionId, next);
      return { version: next.version };
    },
  };
}
