/**
 * A request body and the conversation read from it: what a dialect's request reader returns and
 * the compactor writes back through.
 */
import type { Message, SystemPrompt } from './messages.js';

/**
 * A tool definition in any provider's shape: Anthropic `{ name, description, input_schema }` (and
 * server tools such as `{ type: 'web_search_20250305', name }`), OpenAI chat
 * `{ type: 'function', function: { name, description, parameters } }`, OpenAI Responses
 * `{ type: 'function', name, description, parameters }` and other typed tools.
 */
export type ToolDefinition = object;

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
