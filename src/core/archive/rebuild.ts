import { archiveIdInPlaceholder } from '../_internal/placeholder.js';
import { toolResultText } from '../_internal/text.js';
import type { ContentBlock, Message, ToolResultBlock } from '../conversation/types.js';
import type { ArchiveItem } from './archive-store.js';

const summaryHeadPattern = /^<context_summary recall="(r\d+)">/;

/**
 * Rebuilds the original conversation from a compacted one and its archive: placeholders become the
 * archived blocks again and each summary becomes the messages it replaced. This is the proof that
 * compaction loses nothing.
 *
 * @example
 * const original = rebuildConversation(result.messages, await compactor.archive.list(compactor.sessionId));
 */
export function rebuildConversation(messages: readonly Message[], items: readonly ArchiveItem[]): Message[] {
  const byId = new Map(items.map((item) => [item.id, item]));
  return rebuildWith(messages, byId, 0);
}

function rebuildWith(messages: readonly Message[], byId: Map<string, ArchiveItem>, depth: number): Message[] {
  if (depth > 1000) throw new Error('archive items refer to each other in a cycle');
  const output: Message[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    const summaryId = summaryIdOf(message);
    const summarized = summaryId === undefined ? undefined : byId.get(summaryId);
    if (summarized?.kind === 'messages' && summarized.messages) {
      output.push(...rebuildWith(summarized.messages, byId, depth + 1));
      index += (summarized.headLength ?? 2) - 1;
      continue;
    }
    output.push(restoreMessage(message, byId));
  }
  return output;
}

function summaryIdOf(message: Message): string | undefined {
  if (message.role !== 'user' || typeof message.content === 'string') return undefined;
  const first = message.content[0];
  if (first?.type !== 'text' || typeof first.text !== 'string') return undefined;
  return summaryHeadPattern.exec(first.text)?.[1];
}

function restoreMessage(message: Message, byId: Map<string, ArchiveItem>): Message {
  if (typeof message.content === 'string') return message;
  let changed = false;
  const content = message.content.map((block) => {
    const original = archivedOriginal(block, byId);
    if (original === undefined) return block;
    changed = true;
    return original;
  });
  return changed ? { ...message, content } : message;
}

function archivedOriginal(block: ContentBlock, byId: Map<string, ArchiveItem>): ContentBlock | undefined {
  let id: string | undefined;
  if (block.type === 'tool_result') id = archiveIdInPlaceholder(toolResultText(block as ToolResultBlock));
  else if (block.type === 'text' && typeof block.text === 'string') id = archiveIdInPlaceholder(block.text);
  else if (block.type === 'tool_use' && typeof block.input === 'object' && block.input !== null) {
    for (const value of Object.values(block.input as Record<string, unknown>)) {
      if (typeof value === 'string' && value.startsWith('[elided:')) id = archiveIdInPlaceholder(value);
      if (id) break;
    }
  }
  return id === undefined ? undefined : byId.get(id)?.block;
}
