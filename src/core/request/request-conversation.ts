/**
 * The conversation inside a whole request body: what the compactor reads (system, messages,
 * tools) and how compacted messages are written back into the body's own field. Each format's
 * reader is its dialect's `readRequest` (`core/wire/<format>/request-<format>.ts`).
 */

import type { RequestBody, RequestConversation } from '../model/request.js';
import type { WireFormat } from '../model/wire-format.js';
import { dialectOf } from '../wire/dialects.js';

/**
 * Reads the conversation of a request body in the given format.
 *
 * @throws {CompactError} `UNREADABLE_INPUT` when a field has the wrong type, `INVALID_TRANSCRIPT`
 *   when OpenAI messages break the API's rules; both with the field's path.
 */
export function readRequestConversation(body: RequestBody, format: WireFormat): RequestConversation {
  return dialectOf(format).readRequest(body);
}
