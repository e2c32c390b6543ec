/** What validation reports: the rule a conversation breaks, and where. */

/** The name of the rule a {@link ValidationProblem} breaks. */
export type ValidationRule =
  /** `messages` is not an array. */
  | 'messages-not-array'
  /** A message is not an object. */
  | 'message-not-object'
  /** A message's role is not one the format allows. */
  | 'invalid-role'
  /** A message's content is neither a string nor an array (or, for OpenAI, null). */
  | 'invalid-content'
  /** A block is not an object with a string `type`, or a known block has the wrong field types. */
  | 'invalid-block'
  /** A `tool_use` block lacks a string `id`, a string `name` or an object `input`. */
  | 'invalid-tool-use'
  /** A `tool_result` block lacks a string `tool_use_id` or has content of the wrong type. */
  | 'invalid-tool-result'
  /** The system prompt is not a string or an array of non-empty text blocks. */
  | 'invalid-system'
  /** The first message is not a user message (Anthropic). */
  | 'first-message-not-user'
  /** An Anthropic `role: "system"` message opens the conversation instead of following a turn. */
  | 'misplaced-system-message'
  /** String content is empty or whitespace only (Anthropic). */
  | 'empty-content'
  /** Content is an empty block list (Anthropic). */
  | 'empty-block-list'
  /** A text block is empty or whitespace only (Anthropic). */
  | 'empty-text-block'
  /** A `tool_use` block sits in a user message. */
  | 'tool-use-in-user-message'
  /** A `tool_result` block sits in an assistant message. */
  | 'tool-result-in-assistant-message'
  /** Two `tool_use` blocks share an id. */
  | 'duplicate-tool-use-id'
  /** A `tool_use` has no `tool_result` in the next user turn. */
  | 'unanswered-tool-use'
  /** The conversation ends with an assistant `tool_use` that has no result. */
  | 'trailing-tool-use'
  /** A `tool_result` answers no `tool_use` of the previous assistant turn. */
  | 'orphan-tool-result'
  /** A second `tool_result` for the same `tool_use`. */
  | 'duplicate-tool-result'
  /** A `tool_result` comes after a block of another type in its user turn. */
  | 'tool-result-not-first'
  /** An OpenAI tool call lacks a string `id`, `function.name` or `function.arguments`. */
  | 'invalid-tool-call'
  /** An OpenAI `tool` message lacks a string `tool_call_id`. */
  | 'invalid-tool-message'
  /** An OpenAI `tool` message carries an `image_url` part; the API accepts only text there. */
  | 'image-in-tool-message'
  /** Two OpenAI tool calls share an id. */
  | 'duplicate-tool-call-id'
  /** An OpenAI tool call has no `tool` message before the next non-tool message. */
  | 'unanswered-tool-call'
  /** An OpenAI `tool` message answers no tool call of the assistant message before it. */
  | 'orphan-tool-message'
  /** A second OpenAI `tool` message for the same tool call. */
  | 'duplicate-tool-message'
  /** An OpenAI assistant message with neither content nor tool calls. */
  | 'empty-assistant-message'
  /** A Responses item lacks a field its type requires, or has one of the wrong type. */
  | 'invalid-item'
  /** A Responses `reasoning` item is not directly followed by the message or call it produced. */
  | 'misplaced-reasoning'
  /** A Gemini part holds no known data field, or more than one. */
  | 'unknown-part-type'
  /** A Gemini model step of the current turn lost the `thoughtSignature` of its first call. */
  | 'missing-thought-signature';

/** One rule a conversation breaks, and where. */
export interface ValidationProblem {
  /** Where the problem is, e.g. `messages[12].content[0]`. */
  path: string;
  /** What is wrong, e.g. `tool_result "toolu_1" has no tool_use in messages[11]`. */
  message: string;
  /** The rule broken. */
  rule: ValidationRule;
}
