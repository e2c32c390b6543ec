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
    const summaryId = summaryIdOf(message, byId);
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

/** The id of the summary item this message is the head of, when it is one (not text that looks like one). */
function summaryIdOf(message: Message, byId: Map<string, ArchiveItem>): string | undefined {
  if (message.role !== 'user' || typeof message.content === 'string') return undefined;
  const first = message.content[0];
  if (first?.type !== 'text' || typeof first.text !== 'string') return undefined;
  const id = summaryHeadPattern.exec(first.text)?.[1];
  const item = id === undefined ? undefined : byId.get(id);
  if (item?.kind !== 'messages' || !matchesPlaceholder(item, first.text)) return undefined;
  return id;
}

/**
 * Items written before `placeholder` existed match by id and kind alone. A summary head matches on
 * its `<context_summary>` block: the session ledger after it is the compactor's running record, which
 * a call retried after a crash may render with more in it than the attempt that archived the item.
 */
function matchesPlaceholder(item: ArchiveItem, text: string): boolean {
  if (item.placeholder === undefined || item.placeholder === text) return true;
  const summary = summaryBlock(item.placeholder);
  return summary !== undefined && summary === summaryBlock(text);
}

function summaryBlock(text: string): string | undefined {
  const end = text.indexOf(summaryClose);
  return end < 0 ? undefined : text.slice(0, end + summaryClose.length);
}

const summaryClose = '</context_summary>';

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

/**
 * The archived original a block stands in for. A block is taken for a placeholder only when the
 * item its text names was archived for that very block: a tool result or input of the same
 * `tool_use` id, or a text equal to the placeholder recorded with the item. A tool output that
 * merely reads like a placeholder stays as it is.
 */
function archivedOriginal(block: ContentBlock, byId: Map<string, ArchiveItem>): ContentBlock | undefined {
  if (block.type === 'tool_result') {
    const result = block as ToolResultBlock;
    const item = itemNamedBy(toolResultText(result), byId);
    return item?.kind === 'tool-result' && item.toolUseId === result.tool_use_id ? item.block : undefined;
  }
  if (block.type === 'text' && typeof block.text === 'string') {
    const item = itemNamedBy(block.text, byId);
    return item?.kind === 'assistant-text' && matchesPlaceholder(item, block.text) ? item.block : undefined;
  }
  if (block.type === 'tool_use' && typeof block.input === 'object' && block.input !== null) {
    for (const value of Object.values(block.input as Record<string, unknown>)) {
      if (typeof value !== 'string' || !value.startsWith('[elided:')) continue;
      const item = itemNamedBy(value, byId);
      if (item?.kind === 'tool-input' && item.toolUseId === block.id) return item.block;
    }
  }
  return undefined;
}

function itemNamedBy(text: string, byId: Map<string, ArchiveItem>): ArchiveItem | undefined {
  const id = archiveIdInPlaceholder(text);
  return id === undefined ? undefined : byId.get(id);
}
