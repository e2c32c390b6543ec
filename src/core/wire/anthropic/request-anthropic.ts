/** The conversation of an Anthropic Messages request body. */
import type { Message, SystemPrompt } from '../../model/messages.js';
import type { RequestBody, RequestConversation } from '../../model/request.js';
import { expectArray, readTools, unreadable } from '../../request/request-fields.js';
import { isPlainObject, typeName } from '../../request/request-format.js';
import {
  countSystemMessageBreakpoints,
  placeSystemMessages,
  splitSystemMessages,
  withSystemMessageText,
} from '../../request/system-messages.js';
import { describeValue } from '../_internal/read-helpers.js';

/** An Anthropic request: `system`, `messages` (with any mid-conversation system messages) and `tools`. */
export function readAnthropicRequest(body: RequestBody): RequestConversation {
  const bodyMessages = expectArray(body.messages, 'messages');
  checkRoles(bodyMessages);
  const places = splitSystemMessages(bodyMessages);
  const tools = readTools(body.tools);
  const { system } = body;
  if (system !== undefined && system !== null && typeof system !== 'string' && !Array.isArray(system)) {
    throw unreadable(`expected string or array, got ${typeName(system)}`, 'system');
  }
  // Mid-conversation system messages are instructions: counted with the system prompt, put back as they came.
  const counted = withSystemMessageText((system ?? undefined) as SystemPrompt | undefined, places);
  const topLevelBreakpoint = isPlainObject(body.cache_control) ? 1 : 0;
  return {
    messages: places.conversation as Message[],
    ...(counted === undefined ? {} : { system: counted }),
    ...(tools ? { tools } : {}),
    write: (compacted, options) => ({ messages: placeSystemMessages(compacted, places, options) }),
    extraBreakpoints: topLevelBreakpoint + countSystemMessageBreakpoints(places),
    ...(places.placed.length > 0
      ? { messagePath: (index: number) => `messages[${places.bodyIndex[index] ?? index}]` }
      : {}),
  };
}

/**
 * Refuses a message whose role the API does not take, as the file reader does: the layers would
 * read it as neither side, and a summary could leave its tool calls' results behind, unpaired.
 * A message that is no object is left to the API's rules (`INVALID_TRANSCRIPT`).
 */
function checkRoles(messages: readonly unknown[]): void {
  messages.forEach((message, index) => {
    if (!isPlainObject(message)) return;
    const { role } = message;
    if (role !== 'user' && role !== 'assistant' && role !== 'system') {
      throw unreadable(
        `expected "user", "assistant" or "system", got ${describeValue(role)}`,
        `messages[${index}].role`,
      );
    }
  });
}
