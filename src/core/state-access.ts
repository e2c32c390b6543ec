import type {
  CompactorState,
  SaveSessionStateOptions,
  SessionStateStore,
  StoredSessionState,
} from './archive/session-state-store.js';
import { storeAnswer } from './turn-report.js';

/**
 * The stored state of a session. A store that rejects or has not answered within
 * `ARCHIVE_TIMEOUT_MS` fails the call with `STATE_FAILED` before anything changed: a Redis that went
 * away queues the command for ever, and the agent's request with it.
 */
export async function loadState(
  store: SessionStateStore,
  sessionId: string,
): Promise<StoredSessionState | undefined> {
  return storeAnswer(() => store.load(sessionId), stateCall(`reading the state of session ${sessionId}`));
}

/**
 * Saves a session's state; a `STATE_CONFLICT` the store throws passes as it is, any other failure
 * (or no answer in time) is `STATE_FAILED`.
 */
export async function saveState(
  store: SessionStateStore,
  sessionId: string,
  state: CompactorState,
  options: SaveSessionStateOptions,
): Promise<{ version: number }> {
  return storeAnswer(
    () => store.save(sessionId, state, options),
    stateCall(`saving the state of session ${sessionId}`),
  );
}

function stateCall(what: string) {
  return { what, store: 'state store', code: 'STATE_FAILED', keepTyped: true } as const;
}
