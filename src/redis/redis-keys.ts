import { CompactError } from 'agent-compact';

/** The key prefix the stores use unless told otherwise. */
export const DEFAULT_PREFIX = 'agent-compact:';

/**
 * Checks a key prefix: a brace would start a Redis Cluster hash tag and split a session's keys
 * across slots, so it is refused.
 */
export function checkPrefix(prefix: string): string {
  if (/[{}]/.test(prefix)) {
    throw new CompactError(`the key prefix ${JSON.stringify(prefix)} may not contain "{" or "}"`, {
      code: 'INVALID_OPTIONS',
      path: 'prefix',
    });
  }
  return prefix;
}

/**
 * The key of one part of a session: `<prefix>{<session id>}:<part>`. The session id is the hash
 * tag, so every key of a session lands in one Redis Cluster slot (scripts may touch them together);
 * it is percent-encoded so no brace inside it can end the tag early.
 */
export function sessionKey(prefix: string, sessionId: string, part: string): string {
  if (typeof sessionId !== 'string' || sessionId.length === 0) {
    throw new CompactError(`session id ${JSON.stringify(sessionId)} must be a non-empty string`, {
      code: 'INVALID_OPTIONS',
      path: 'sessionId',
    });
  }
  return `${prefix}{${encodeURIComponent(sessionId)}}:${part}`;
}
