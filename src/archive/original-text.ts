import type { ArchiveItem } from '../core/archive/archive-store.js';
import type { ToolResultBlock } from '../core/model/messages.js';

/**
 * What an archived item held before it left the context, as text: a tool result's output, an
 * assistant text, a tool call's input as JSON, or the messages a hard compaction replaced as JSON.
 *
 * @example
 * const item = await archive.get('task-42', 'r17');
 * if (item) process.stdout.write(originalText(item));
 */
export function originalText(item: ArchiveItem): string {
  if (item.kind === 'messages') return `${JSON.stringify(item.messages ?? [], null, 2)}\n`;
  const { block } = item;
  if (!block) return '';
  switch (block.type) {
    case 'tool_result': {
      const { content } = block as ToolResultBlock;
      if (content === undefined) return '';
      return typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`;
    }
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'tool_use':
      return `${JSON.stringify(block.input)}\n`;
    default:
      return `${JSON.stringify(block)}\n`;
  }
}
