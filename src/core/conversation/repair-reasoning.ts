/**
 * The reasoning step of `repairMessages`: an OpenAI Responses `reasoning` block must be
 * directly followed (after further reasoning) by what the model produced, or the API refuses it.
 */

import type { ContentBlock, Message } from '../model/messages.js';
import type { RepairChange, WorkingMessage } from './repair-change.js';

/**
 * The positions (`message:block`) of reasoning blocks that the next block other than reasoning,
 * in this or a later message, does not follow as what the model produced (the Responses rule
 * `misplaced-reasoning`, read on the canonical model).
 */
export function misplacedReasoning(
  messages: readonly { role: Message['role']; blocks: readonly ContentBlock[] }[],
) {
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

export function blocksOf(message: Message): { role: Message['role']; blocks: readonly ContentBlock[] } {
  return { role: message.role, blocks: typeof message.content === 'string' ? [] : message.content };
}

/** Drops the reasoning blocks {@link misplacedReasoning} finds, and a message left empty. */
export function dropMisplacedReasoning(
  messages: WorkingMessage[],
  changes: RepairChange[],
): WorkingMessage[] {
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
