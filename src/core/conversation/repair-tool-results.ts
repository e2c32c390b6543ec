/**
 * The tool-call steps of `repairMessages`: fresh ids for reused tool_use ids, then exactly one
 * tool_result per tool_use of the assistant message before, first in its message.
 */

import type { ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import type { RepairChange, WorkingBlock, WorkingMessage } from './repair-change.js';

/** The text of a synthetic tool_result for a tool_use whose result is missing. */
export const MISSING_TOOL_RESULT_TEXT = 'The result of this tool call is missing from the conversation.';

/** Gives every repeated tool_use id a fresh one, and points the matching tool_results at it. */
export function renameDuplicateToolUses(messages: WorkingMessage[], changes: RepairChange[]): void {
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

/**
 * Keeps exactly one tool_result per tool_use of the previous assistant message, first in line.
 * `leftOpen` names (by origin) tool_uses of a final assistant message to leave unanswered.
 */
export function pairToolResults(
  messages: readonly WorkingMessage[],
  changes: RepairChange[],
  leftOpen: (origin: string) => boolean = () => false,
): WorkingMessage[] {
  const paired: WorkingMessage[] = [];
  messages.forEach((message, index) => {
    const previous = messages[index - 1];
    if (message.role === 'user') {
      paired.push(answerToolUses(message, previous, changes));
      return;
    }
    paired.push(message);
    if (index !== messages.length - 1) return;
    // An assistant message that ends the conversation with tool calls needs a user message to answer them.
    const asked = {
      ...message,
      blocks: message.blocks.filter((entry) => entry.block.type !== 'tool_use' || !leftOpen(entry.origin)),
    };
    if (toolUsesOf(asked).length === 0) return;
    const answers: WorkingMessage = {
      role: 'user',
      blocks: [],
      source: undefined,
      changed: true,
      origin: '',
    };
    paired.push(answerToolUses(answers, asked, changes));
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
