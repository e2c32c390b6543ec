/**
 * Turns any structurally well-typed Anthropic conversation into one the provider accepts, with a
 * change record for everything it did. Deterministic and pure: the input is never mutated.
 */
import { CompactError } from '../errors.js';
import type {
  ContentBlock,
  Message,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from './types.js';
import { type ValidationRule, validateMessages } from './validate.js';

/** What {@link repairMessages} did at one place. */
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

/** One change {@link repairMessages} made. */
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

/** The text of the user message put before a conversation that starts with the assistant. */
export const LEADING_USER_MESSAGE_TEXT = '(conversation continues)';

/** The text of a synthetic tool_result for a tool_use whose result is missing. */
export const MISSING_TOOL_RESULT_TEXT = 'The result of this tool call is missing from the conversation.';

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
 *    message when the conversation ends with it; tool_results move before the other blocks.
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
export function repairMessages(messages: readonly Message[]): RepairResult {
  const problems = validateMessages(messages);
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
  working = pairToolResults(working, changes);
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

interface WorkingBlock {
  block: ContentBlock;
  /** Path of the block in the input, or of the tool_use a synthetic result answers. */
  origin: string;
}

interface WorkingMessage {
  role: Message['role'];
  blocks: WorkingBlock[];
  /** The input message, returned as it is while `changed` is false. */
  source: Message | undefined;
  changed: boolean;
  /** Path of the message in the input (the first one, for merged messages). */
  origin: string;
}

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

/** Gives every repeated tool_use id a fresh one, and points the matching tool_results at it. */
function renameDuplicateToolUses(messages: WorkingMessage[], changes: RepairChange[]): void {
  const taken = new Set<string>();
  for (const message of messages) {
    for (const { block } of message.blocks) {
      if (block.type === 'tool_use') taken.add((block as ToolUseBlock).id);
      if (block.type === 'tool_result') taken.add((block as ToolResultBlock).tool_use_id);
    }
  }
  const seen = new Set<string>();
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'assistant') return;
    // For each original id, the id each of its occurrences in this message ends up with.
    const finalIds = new Map<string, string[]>();
    message.blocks = message.blocks.map((entry) => {
      if (entry.block.type !== 'tool_use') return entry;
      const toolUse = entry.block as ToolUseBlock;
      let id = toolUse.id;
      if (seen.has(id)) {
        id = freshId(toolUse.id, taken);
        taken.add(id);
        message.changed = true;
        changes.push({
          kind: 'duplicate-tool-use-renamed',
          path: entry.origin,
          message: `renamed tool_use ${JSON.stringify(toolUse.id)}, already used earlier, to ${JSON.stringify(id)}`,
        });
      }
      seen.add(id);
      finalIds.set(toolUse.id, [...(finalIds.get(toolUse.id) ?? []), id]);
      return id === toolUse.id ? entry : { ...entry, block: { ...toolUse, id } };
    });
    const next = messages[messageIndex + 1];
    if (next?.role !== 'user') return;
    const occurrences = new Map<string, number>();
    next.blocks = next.blocks.map((entry) => {
      if (entry.block.type !== 'tool_result') return entry;
      const result = entry.block as ToolResultBlock;
      const occurrence = occurrences.get(result.tool_use_id) ?? 0;
      occurrences.set(result.tool_use_id, occurrence + 1);
      const id = finalIds.get(result.tool_use_id)?.[occurrence];
      if (id === undefined || id === result.tool_use_id) return entry;
      next.changed = true;
      changes.push({
        kind: 'duplicate-tool-use-renamed',
        path: entry.origin,
        message: `pointed tool_result ${JSON.stringify(result.tool_use_id)} at the renamed tool_use ${JSON.stringify(id)}`,
      });
      return { ...entry, block: { ...result, tool_use_id: id } };
    });
  });
}

function freshId(id: string, taken: ReadonlySet<string>): string {
  for (let suffix = 2; ; suffix++) {
    const candidate = `${id}_${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Keeps exactly one tool_result per tool_use of the previous assistant message, first in line. */
function pairToolResults(messages: readonly WorkingMessage[], changes: RepairChange[]): WorkingMessage[] {
  const paired: WorkingMessage[] = [];
  messages.forEach((message, index) => {
    const previous = messages[index - 1];
    if (message.role === 'user') {
      paired.push(answerToolUses(message, previous, changes));
      return;
    }
    paired.push(message);
    // An assistant message that ends the conversation with tool calls needs a user message to answer them.
    if (index === messages.length - 1 && toolUsesOf(message).length > 0) {
      const answers: WorkingMessage = {
        role: 'user',
        blocks: [],
        source: undefined,
        changed: true,
        origin: '',
      };
      paired.push(answerToolUses(answers, message, changes));
    }
  });
  return paired;
}

function answerToolUses(
  message: WorkingMessage,
  previous: WorkingMessage | undefined,
  changes: RepairChange[],
): WorkingMessage {
  const toolUses = previous?.role === 'assistant' ? toolUsesOf(previous) : [];
  const pending = new Set(toolUses.map(({ block }) => block.id));
  const answered = new Set<string>();
  const results: WorkingBlock[] = [];
  const others: WorkingBlock[] = [];
  let changed = false;
  let resultAfterOther = false;
  for (const entry of message.blocks) {
    if (entry.block.type !== 'tool_result') {
      others.push(entry);
      continue;
    }
    const id = (entry.block as ToolResultBlock).tool_use_id;
    const quoted = JSON.stringify(id);
    if (!pending.has(id)) {
      changed = true;
      changes.push({
        kind: 'orphan-tool-result-dropped',
        path: entry.origin,
        message: `dropped tool_result ${quoted}: no tool_use ${previous ? `in ${previous.origin}` : 'before it'}`,
      });
    } else if (answered.has(id)) {
      changed = true;
      changes.push({
        kind: 'duplicate-tool-result-dropped',
        path: entry.origin,
        message: `dropped a second tool_result for ${quoted}`,
      });
    } else {
      answered.add(id);
      if (others.length > 0) resultAfterOther = true;
      results.push(entry);
    }
  }
  for (const { block, origin } of toolUses) {
    if (answered.has(block.id)) continue;
    answered.add(block.id);
    changed = true;
    results.push({ block: syntheticResult(block.id), origin });
    changes.push({
      kind: 'synthetic-tool-result-added',
      path: origin,
      message: `added an is_error tool_result for tool_use ${JSON.stringify(block.id)}, whose result is missing`,
    });
  }
  if (resultAfterOther) {
    changed = true;
    changes.push({
      kind: 'tool-results-moved-first',
      path: message.origin || 'messages',
      message: 'moved the tool_results before the other blocks of the message',
    });
  }
  if (!changed) return message;
  return { ...message, blocks: [...results, ...others], changed: true };
}

function syntheticResult(toolUseId: string): ToolResultBlock {
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    is_error: true,
    content: [{ type: 'text', text: MISSING_TOOL_RESULT_TEXT }],
  };
}

function toolUsesOf(message: WorkingMessage): { block: ToolUseBlock; origin: string }[] {
  return message.blocks
    .filter((entry) => entry.block.type === 'tool_use')
    .map((entry) => ({ block: entry.block as ToolUseBlock, origin: entry.origin }));
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

/**
 * The positions (`message:block`) of reasoning blocks that the next block other than reasoning,
 * in this or a later message, does not follow as what the model produced (the Responses rule
 * `misplaced-reasoning`, read on the canonical model).
 */
function misplacedReasoning(messages: readonly { role: Message['role']; blocks: readonly ContentBlock[] }[]) {
  const misplaced = new Set<string>();
  let followedByModel = false;
  for (let messageIndex = messages.length - 1; messageIndex >= 0; messageIndex--) {
    const { role, blocks } = messages[messageIndex]!;
    for (let blockIndex = blocks.length - 1; blockIndex >= 0; blockIndex--) {
      const { type } = blocks[blockIndex]!;
      if (type === 'reasoning') {
        if (!followedByModel) misplaced.add(`${messageIndex}:${blockIndex}`);
        continue;
      }
      followedByModel = type === 'item_reference' || (role === 'assistant' && type !== 'tool_result');
    }
  }
  return misplaced;
}

function blocksOf(message: Message): { role: Message['role']; blocks: readonly ContentBlock[] } {
  return { role: message.role, blocks: typeof message.content === 'string' ? [] : message.content };
}

/** Drops the reasoning blocks {@link misplacedReasoning} finds, and a message left empty. */
function dropMisplacedReasoning(messages: WorkingMessage[], changes: RepairChange[]): WorkingMessage[] {
  const misplaced = misplacedReasoning(
    messages.map(({ role, blocks }) => ({ role, blocks: blocks.map(({ block }) => block) })),
  );
  if (misplaced.size === 0) return messages;
  messages.forEach((message, messageIndex) => {
    const kept = message.blocks.filter((entry, blockIndex) => {
      if (!misplaced.has(`${messageIndex}:${blockIndex}`)) return true;
      const blockId = (entry.block as { id?: unknown }).id;
      const id = typeof blockId === 'string' ? ` ${JSON.stringify(blockId)}` : '';
      changes.push({
        kind: 'misplaced-reasoning-dropped',
        path: entry.origin,
        message: `dropped reasoning${id}: it was not directly followed by the message or call it produced`,
      });
      return false;
    });
    if (kept.length === message.blocks.length) return;
    message.blocks = kept;
    message.changed = true;
  });
  return messages.filter((message) => {
    if (message.blocks.length > 0) return true;
    changes.push({
      kind: 'empty-message-dropped',
      path: message.origin,
      message: 'dropped a message left empty by removing its misplaced reasoning',
    });
    return false;
  });
}

function toMessage(message: WorkingMessage): Message {
  if (!message.changed && message.source) return message.source;
  // Keep any extra fields the caller put on the message; role and content are ours.
  return { ...message.source, role: message.role, content: message.blocks.map(({ block }) => block) };
}

function isBlank(text: string): boolean {
  return text.trim().length === 0;
}
