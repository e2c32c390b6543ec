import type { ContentBlock, Message, TextBlock } from '../conversation/types.js';

/** Stands in for a message whose every block was unreadable, so the history stays valid. */
export const UNREADABLE_CONTENT_TEXT = '[encrypted or signed content omitted]';

/**
 * The history as a summarizer may read it: nothing opaque or signed leaves for another model.
 * `thinking` (signed), `redacted_thinking` (encrypted) and OpenAI `reasoning` / `item_reference`
 * items are dropped; a provider `compaction`
 * block becomes the text of its readable summary (its `encrypted_content` stays behind); blocks of
 * other unknown types that carry `encrypted_content`, `data` or a `signature` are dropped. Pure:
 * messages with nothing to change are the same objects.
 */
export function readableHistory(messages: readonly Message[]): Message[] {
  return messages.map((message) => {
    if (typeof message.content === 'string' || !message.content.some(needsRewrite)) return message;
    const content = message.content.flatMap(readableBlock);
    return {
      ...message,
      content: content.length > 0 ? content : [{ type: 'text', text: UNREADABLE_CONTENT_TEXT }],
    };
  });
}

function needsRewrite(block: ContentBlock): boolean {
  return readableBlock(block)[0] !== block;
}

function readableBlock(block: ContentBlock): ContentBlock[] {
  switch (block.type) {
    case 'thinking':
    case 'redacted_thinking':
    // OpenAI Responses: reasoning is the model's private thinking like `thinking` (its summary
    // included), and an item reference points at a stored item the summarizer cannot see.
    case 'reasoning':
    case 'item_reference':
      return [];
    case 'compaction': {
      const summary = (block as { content?: unknown }).content;
      const text: TextBlock = { type: 'text', text: `[earlier summary by the provider]\n${String(summary)}` };
      return typeof summary === 'string' && summary !== '' ? [text] : [];
    }
    case 'text':
    case 'image':
    case 'tool_use':
    case 'tool_result':
      return [block];
    default:
      return isOpaque(block) ? [] : [block];
  }
}

/** A block of a type this library does not model that carries data only its provider can read. */
function isOpaque(block: ContentBlock): boolean {
  return ['encrypted_content', 'data', 'signature'].some((key) => Object.hasOwn(block, key));
}
