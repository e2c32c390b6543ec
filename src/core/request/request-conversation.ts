/**
 * The conversation inside a whole request body: what the compactor reads (system, messages,
 * tools) and how compacted messages are written back into the body's own field. Each format's
 * reader is its dialect's `readRequest` (`core/wire/<format>/request-<format>.ts`).
 */
import type { Message, SystemPrompt } from '../model/messages.js';
import type { WireFormat } from '../model/wire-format.js';
import type { ToolDefinition } from '../tokens/tool-tokens.js';
import { dialectOf } from '../wire/dialects.js';

/** A request body as a plain JSON object. */
export type RequestBody = Record<string, unknown>;

/** What the compactor reads from a request, and how its result goes back. */
export interface RequestConversation {
  /** The system prompt in the canonical model (counted, never changed). */
  system?: SystemPrompt;
  /** The conversation in the canonical model. */
  messages: Message[];
  /** The request's tool definitions as they came (counted, never changed). */
  tools?: readonly ToolDefinition[];
  /**
   * The body's fields that carry `messages` once compacted, by name (e.g. `{ messages: [...] }`).
   * `inPlace`: every message is where it was (micro, mid), so what the canonical model left out
   * goes back by position rather than by object.
   */
  write(messages: readonly Message[], options?: { inPlace?: boolean }): RequestBody;
  /** Cache breakpoints outside the system prompt, tools and messages (top-level, system messages). */
  extraBreakpoints?: number;
  /** The body path of conversation message `index`, when it differs from `messages[index]`. */
  messagePath?(index: number): string;
}

/**
 * Reads the conversation of a request body in the given format.
 *
 * @throws {CompactError} `UNREADABLE_INPUT` when a field has the wrong type, `INVALID_TRANSCRIPT`
 *   when OpenAI messages break the API's rules; both with the field's path.
 */
export function readRequestConversation(body: RequestBody, format: WireFormat): RequestConversation {
  return dialectOf(format).readRequest(body);
}
