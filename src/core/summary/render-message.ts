import { escapeReservedTags, safeJson, toolResultText } from '../_internal/text.js';
import type { ContentBlock, Message, ToolResultBlock } from '../model/messages.js';
import { blockStandIn } from './readable-history.js';

/** A message as plain transcript text (for chunked summaries and size estimates). */
export function renderMessage(message: Message): string {
  const blocks =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content } as ContentBlock]
      : message.content;
  const parts = blocks.map((block) => {
    switch (block.type) {
      case 'text':
        return escapeReservedTags(String(block.text));
      case 'tool_use':
        return `→ ${String(block.name)} ${safeJson(block.input)}`;
      case 'tool_result':
        return `← ${escapeReservedTags(toolResultText(block as ToolResultBlock))}`;
      case 'thinking':
        return '';
      default:
        return blockStandIn(block);
    }
  });
  return `${message.role}: ${parts.filter(Boolean).join('\n')}`;
}
