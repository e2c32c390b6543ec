import type {
  CompactorState,
  SaveSessionStateOptions,
  SessionStateStore,
  StoredSessionState,
} from './archive/session-state-store.js';
import { CompactError } from './model/errors.js';
import { ARCHIVE_TIMEOUT_MS, archiveAnswer } from './turn-report.js';

/** What a `STATE_FAILED` message says of a store that did not answer in time. */
const STATE_SILENT = `the state store did not answer within ${ARCHIVE_TIMEOUT_MS / 1000} s`;

/**
 * The stored state of a session. A store that rejects or has not answered within
 * `ARCHIVE_TIMEOUT_MS` fails the call with `STATE_FAILED` before anything changed: a Redis that went
 * away queues the command for ever, and the agent's request with it.
 */
export async function loadState(
  store: SessionStateStore,
  sessionId: string,
): Promise<StoredSessionState | undefined> {
  return bounded(() => store.load(sessionId), `reading the state of session ${sessionId}`);
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
  return bounded(() => store.save(sessionId, state, options), `saving the state of session ${sessionId}`);
}

async function bounded<T>(operation: () => Promise<T>, what: string): Promise<T> {
  let answer: { value: T } | 'timed-out';
  try {
    answer = await archiveAnswer(operation);
  } catch (error) {
    if (CompactError.isInstance(error)) throw error;
    throw new CompactError(`${what} failed; the context was left unchanged`, {
      code: 'STATE_FAILED',
      cause: error,
    });
  }
  if (answer === 'timed-out') {
    throw new CompactError(`${what} failed: ${STATE_SILENT}; the context was left unchanged`, {
      code: 'STATE_FAILED',
    });
  }
  return answer.value;
}
