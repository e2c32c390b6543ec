/**
 * The change record `repairMessages` returns, and the working copy of a conversation its
 * steps pass along: each block and message remembers where in the input it came from.
 */
import type { ContentBlock, Message } from '../model/messages.js';

/** What `repairMessages` did at one place. */
export type RepairChangeKind =
  /** An empty or whitespace-only text block (also inside a tool_result) was removed. */
  | 'empty-block-removed'
  /** A message with empty content, or left empty by other repairs, was dropped. */
  | 'empty-message-dropped'
  /** A tool_use in a user message, or a tool_result in an assistant message, was removed. */
  | 'misplaced-block-removed'
  /** A message was merged into the preceding message of the same role. */
  | 'messages-merged'
  /** A tool_use reusing an earlier id got a fresh id (and the matching tool_result followed). */
  | 'duplicate-tool-use-renamed'
  /** A tool_result answering no tool_use of the previous assistant message was dropped. */
  | 'orphan-tool-result-dropped'
  /** A second tool_result for the same tool_use was dropped; the first is kept. */
  | 'duplicate-tool-result-dropped'
  /** tool_results were moved before the other blocks of their message. */
  | 'tool-results-moved-first'
  /** An unanswered tool_use got a synthetic `is_error` tool_result. */
  | 'synthetic-tool-result-added'
  /** A user message was put before a leading assistant message. */
  | 'leading-user-message-added'
  /** An OpenAI `reasoning` block not followed by the message or call it produced was dropped. */
  | 'misplaced-reasoning-dropped';

/** One change `repairMessages` made. */
export interface RepairChange {
  /** What was done. */
  kind: RepairChangeKind;
  /**
   * Where, as a path into the *input* (e.g. `messages[4].content[1]`); for a synthetic tool_result,
   * the path of the tool_use it answers; for the added leading message, `messages[0]`.
   */
  path: string;
  /** A sentence saying what was done. */
  message: string;
}

export interface WorkingBlock {
  block: ContentBlock;
  /** Path of the block in the input, or of the tool_use a synthetic result answers. */
  origin: string;
}

export interface WorkingMessage {
  role: Message['role'];
  blocks: WorkingBlock[];
  /** The input message, returned as it is while `changed` is false. */
  source: Message | undefined;
  changed: boolean;
  /** Path of the message in the input (the first one, for merged messages). */
  origin: string;
}
