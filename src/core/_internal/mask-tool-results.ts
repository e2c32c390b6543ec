import type { ArchiveItem } from '../archive-store.js';
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from '../types.js';
import type { ArchiveIds } from './archive-ids.js';
import { archiveKey } from './archive-ids.js';
import { toolResultPlaceholder } from './placeholder.js';

/** A tool result to replace with its placeholder. */
export interface MaskTarget {
  messageIndex: number;
  blockIndex: number;
  toolUseId: string;
  tokens: number;
}

/** Context every layer's rewrite needs: ids, the session, and how to find a tool call. */
export interface RewriteContext {
  ids: ArchiveIds;
  sessionId: string;
  now: number;
  toolUse(id: string): ToolUseBlock | undefined;
}

/**
 * Replaces the targeted tool results with one-line placeholders. The `tool_use`, the pairing and
 * `is_error` stay; the original block goes to the returned archive items. Returns a new array;
 * untouched messages are the same objects.
 */
export function maskToolResults(
  messages: readonly Message[],
  targets: readonly MaskTarget[],
  context: RewriteContext,
): { messages: Message[]; items: ArchiveItem[] } {
  const output = messages.slice();
  const items: ArchiveItem[] = [];
  const byMessage = new Map<number, MaskTarget[]>();
  for (const target of targets) {
    const list = byMessage.get(target.messageIndex) ?? [];
    list.push(target);
    byMessage.set(target.messageIndex, list);
  }
  for (const [messageIndex, list] of byMessage) {
    const message = output[messageIndex];
    if (!message || typeof message.content === 'string') continue;
    const content: ContentBlock[] = message.content.slice();
    for (const target of list) {
      const block = content[target.blockIndex];
      if (block?.type !== 'tool_result') continue;
      const result = block as ToolResultBlock;
      const toolUse = context.toolUse(result.tool_use_id);
      const { id, known } = context.ids.idFor(archiveKey('tool-result', result.tool_use_id));
      if (!known) {
        items.push({
          id,
          sessionId: context.sessionId,
          kind: 'tool-result',
          createdAt: context.now,
          toolUseId: result.tool_use_id,
          ...(toolUse ? { toolName: toolUse.name } : {}),
          block: result,
        });
      }
      const placeholder: ToolResultBlock = {
        type: 'tool_result',
        tool_use_id: result.tool_use_id,
        content: toolResultPlaceholder({ toolUse, result, tokens: target.tokens, archiveId: id }),
        ...(result.is_error === undefined ? {} : { is_error: result.is_error }),
      };
      content[target.blockIndex] = placeholder;
    }
    output[messageIndex] = { ...message, content };
  }
  return { messages: output, items };
}
