/**
 * Turns any structurally well-typed Anthropic conversation into one the provider accepts, with a
 * change record for everything it did. Deterministic and pure: the input is never mutated.
 */
import { CompactError } from '../model/errors.js';
import type { ContentBlock, Message, ToolResultBlock, ToolResultContentBlock } from '../model/messages.js';
import type { ValidationRule } from '../model/problems.js';
import type { RepairChange, WorkingMessage } from './repair-change.js';
import { blocksOf, dropMisplacedReasoning, misplacedReasoning } from './repair-reasoning.js';
import { MISSING_TOOL_RESULT_TEXT, pairToolResults, renameDuplicateToolUses } from './repair-tool-results.js';
import { validateMessages } from './validate.js';

export type { RepairChange, RepairChangeKind } from './repair-change.js';
export { MISSING_TOOL_RESULT_TEXT };

/** The result of {@link repairMessages}. */
export interface RepairResult {
  /**
   * The repaired conversation. When nothing needed repair this is the input array itself, so
   * treat it as read-only. Messages that needed no change are the input's own objects.
   */
  messages: Message[];
  /** Every change made, in order; empty when the input was already valid. */
  changes: RepairChange[];
}

/** Options of {@link repairMessages}. */
export interface RepairOptions {
  /**
   * Leave unanswered the tool calls of a last message that is an assistant message: they are the
   * current turn, which the client answers in its next request, and the Gemini API takes them so.
   * Calls a later message left behind (merged into the last one) are still answered.
   * @default false
   */
  leaveTrailingToolUses?: boolean;
}

/** The text of the user message put before a conversation that starts with the assistant. */
export const LEADING_USER_MESSAGE_TEXT = '(conversation continues)';

/**
 * Makes a conversation valid for the Anthropic Messages API, deterministically, and reports every
 * change. Valid input (as {@link validateMessages} sees it) comes back as the same array with no
 * changes. Otherwise, in this order:
 *
 * 1. Empty and whitespace-only text blocks go; a tool_use in a user message or a tool_result in an
 *    assistant message goes; a message left with no content is dropped.
 * 2. Consecutive messages of the same role merge into one (string content becomes a text block).
 * 3. A tool_use reusing an earlier id is renamed `<id>_2` (`_3`, … — the first free one); the
 *    n-th tool_result with that id in the next message follows the n-th tool_use.
 * 4. In each user message, tool_results that answer no tool_use of the assistant message just
 *    before are dropped, so are second answers to one tool_use; every unanswered tool_use gets a
 *    synthetic tool_result (`is_error: true`, {@link MISSING_TOOL_RESULT_TEXT}), in a new user
 *    message when the conversation ends with it (unless `leaveTrailingToolUses`, for the last
 *    message's own calls); tool_results move before the other blocks.
 * 5. User messages left empty by step 4 are dropped and the assistant messages around them merge.
 *    Then an OpenAI Responses `reasoning` block not directly followed (after further reasoning) by
 *    what the model produced — an assistant block or an `item_reference` — goes (the API refuses
 *    it without the item it preceded); a message left empty goes and its neighbours merge.
 * 6. A conversation that starts with an assistant message gets a user message
 *    ({@link LEADING_USER_MESSAGE_TEXT}) in front.
 *
 * Running it on its own output changes nothing.
 *
 * @throws {CompactError} `INVALID_TRANSCRIPT` when the input is not structurally well-typed (not an
 *   array, a bad role, a block without a string type, a tool_use without id/name/input …): those
 *   cannot be repaired without guessing.
 * @example
 * const { messages, changes } = repairMessages([
 *   { role: 'user', content: 'list the files' },
 *   { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} }] },
 * ]);
 * // messages[2] is a user message with an is_error tool_result for "toolu_1";
 * // changes: [{ kind: 'synthetic-tool-result-added', path: 'messages[1].content[0]', … }]
 */
export function repairMessages(messages: readonly Message[], options: RepairOptions = {}): RepairResult {
  // Not an array is reported below as not repairable.
  const last: Message | undefined = Array.isArray(messages) ? messages.at(-1) : undefined;
  const leftOpen = (path: string) =>
    options.leaveTrailingToolUses === true &&
    last?.role === 'assistant' &&
    path.startsWith(`messages[${messages.length - 1}].`);
  const problems = validateMessages(messages).filter(
    (problem) => problem.rule !== 'trailing-tool-use' || !leftOpen(problem.path),
  );
  const reasoningPlaced = () => misplacedReasoning(messages.map(blocksOf)).size === 0;
  if (problems.length === 0 && reasoningPlaced()) return { messages: messages as Message[], changes: [] };
  const structural = problems.filter((problem) => structuralRules[problem.rule]);
  const [first] = structural;
  if (first) {
    throw new CompactError(`cannot repair: ${first.message}`, {
      code: 'INVALID_TRANSCRIPT',
      path: first.path,
      problems: structural,
    });
  }
  const changes: RepairChange[] = [];
  let working = cleanMessages(messages, changes);
  working = mergeSameRole(working, changes);
  renameDuplicateToolUses(working, changes);
  working = pairToolResults(working, changes, leftOpen);
  working = dropEmptyMessages(working, changes);
  working = mergeSameRole(working, changes);
  // Last: dropping an orphan result can put a reasoning block back before a call.
  working = mergeSameRole(dropMisplacedReasoning(working, changes), changes);
  working = addLeadingUserMessage(working, changes);
  return { messages: working.map(toMessage), changes };
}

/**
 * Rules whose problems repair cannot fix without guessing (true) versus those it repairs (false).
 * A `Record` over the union so a new rule must be classified here.
 */
const structuralRules: Record<ValidationRule, boolean> = {
  'unknown-part-type': true,
  // A signature cannot be made up.
  'missing-thought-signature': true,
  'messages-not-array': true,
  'message-not-object': true,
  'invalid-role': true,
  'invalid-content': true,
  'invalid-block': true,
  'invalid-tool-use': true,
  'invalid-tool-result': true,
  'invalid-system': true,
  // Repair works on the canonical model, which has no system messages inside the conversation.
  'misplaced-system-message': true,
  'first-message-not-user': false,
  'empty-content': false,
  'empty-block-list': false,
  'empty-text-block': false,
  'tool-use-in-user-message': false,
  'tool-result-in-assistant-message': false,
  'duplicate-tool-use-id': false,
  'unanswered-tool-use': false,
  'trailing-tool-use': false,
  'orphan-tool-result': false,
  'duplicate-tool-result': false,
  'tool-result-not-first': false,
  'invalid-tool-call': true,
  'invalid-tool-message': true,
  // Only OpenAI-shaped input has tool messages; repair works on the canonical model.
  'image-in-tool-message': true,
  'duplicate-tool-call-id': true,
  'unanswered-tool-call': true,
  'orphan-tool-message': true,
  'duplicate-tool-message': true,
  'empty-assistant-message': true,
  'invalid-item': true,
  'misplaced-reasoning': false,
};

function cleanMessages(messages: readonly Message[], changes: RepairChange[]): WorkingMessage[] {
  const working: WorkingMessage[] = [];
  messages.forEach((message, index) => {
    const origin = `messages[${index}]`;
    const entry: WorkingMessage = { role: message.role, blocks: [], source: message, changed: false, origin };
    if (typeof message.content === 'string') {
      if (!isBlank(message.content)) {
        entry.blocks.push({ block: { type: 'text', text: message.content }, origin: `${origin}.content` });
      }
    } else {
      message.content.forEach((block, blockIndex) => {
        const path = `${origin}.content[${blockIndex}]`;
        const cleaned = cleanBlock(block, message.role, path, changes);
        if (cleaned !== block) entry.changed = true;
        if (cleaned) entry.blocks.push({ block: cleaned, origin: path });
      });
    }
    if (entry.blocks.length === 0) {
      changes.push({
        kind: 'empty-message-dropped',
        path: origin,
        message: 'dropped a message with no content',
      });
      return;
    }
    working.push(entry);
  });
  return working;
}

/** The block to keep (the same object when unchanged), or undefined to remove it. */
function cleanBlock(
  block: ContentBlock,
  role: Message['role'],
  path: string,
  changes: RepairChange[],
): ContentBlock | undefined {
  if (block.type === 'text' && typeof block.text === 'string' && isBlank(block.text)) {
    changes.push({ kind: 'empty-block-removed', path, message: 'removed an empty text block' });
    return undefined;
  }
  if (block.type === 'tool_use' && role === 'user') {
    changes.push({
      kind: 'misplaced-block-removed',
      path,
      message: 'removed a tool_use from a user message',
    });
    return undefined;
  }
  if (block.type === 'tool_result' && role === 'assistant') {
    changes.push({
      kind: 'misplaced-block-removed',
      path,
      message: 'removed a tool_result from an assistant message',
    });
    return undefined;
  }
  if (block.type === 'tool_result') {
    const result = block as ToolResultBlock;
    if (!Array.isArray(result.content)) return block;
    const kept: ToolResultContentBlock[] = [];
    result.content.forEach((inner, innerIndex) => {
      if (inner.type === 'text' && typeof inner.text === 'string' && isBlank(inner.text)) {
        changes.push({
          kind: 'empty-block-removed',
          path: `${path}.content[${innerIndex}]`,
          message: 'removed an empty text block from a tool_result',
        });
      } else {
        kept.push(inner);
      }
    });
    return kept.length === result.content.length ? block : { ...result, content: kept };
  }
  return block;
}

function mergeSameRole(messages: readonly WorkingMessage[], changes: RepairChange[]): WorkingMessage[] {
  const merged: WorkingMessage[] = [];
  for (const message of messages) {
    const previous = merged.at(-1);
    if (!previous || previous.role !== message.role) {
      merged.push(message);
      continue;
    }
    changes.push({
      kind: 'messages-merged',
      path: message.origin,
      message: `merged into the ${message.role} message before it (${previous.origin})`,
    });
    merged[merged.length - 1] = {
      ...previous,
      blocks: [...previous.blocks, ...message.blocks],
      changed: true,
    };
  }
  return merged;
}

function dropEmptyMessages(messages: readonly WorkingMessage[], changes: RepairChange[]): WorkingMessage[] {
  return messages.filter((message) => {
    if (message.blocks.length > 0) return true;
    changes.push({
      kind: 'empty-message-dropped',
      path: message.origin,
      message: 'dropped a message left empty by removing its tool_results',
    });
    return false;
  });
}

function addLeadingUserMessage(messages: WorkingMessage[], changes: RepairChange[]): WorkingMessage[] {
  if (messages[0]?.role !== 'assistant') return messages;
  changes.push({
    kind: 'leading-user-message-added',
    path: 'messages[0]',
    message: `put a user message ${JSON.stringify(LEADING_USER_MESSAGE_TEXT)} before the leading assistant message`,
  });
  const leading: WorkingMessage = {
    role: 'user',
    blocks: [{ block: { type: 'text', text: LEADING_USER_MESSAGE_TEXT }, origin: 'messages[0]' }],
    source: undefined,
    changed: true,
    origin: 'messages[0]',
  };
  return [leading, ...messages];
}

function toMessage(message: WorkingMessage): Message {
  if (!message.changed && message.source) return message.source;
  // Keep any extra fields the caller put on the message; role and content are ours.
  return { ...message.source, role: message.role, content: message.blocks.map(({ block }) => block) };
}

function isBlank(text: string): boolean {
  return text.trim().length === 0;
}
