import type { ArchiveItem } from '../archive/archive-store.js';
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from '../conversation/types.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { ArchiveIds } from './archive-ids.js';
import { archiveKey } from './archive-ids.js';
import { archiveIdInPlaceholder, minMaskableTokens, toolResultPlaceholder } from './placeholder.js';
import { toolResultText } from './text.js';

/** A tool result to replace with its placeholder. */
export interface MaskTarget {
  messageIndex: number;
  blockIndex: number;
  toolUseId: string;
  tokens: number;
}

/**
 * The whole tool results worth masking in `messages[0..end)` (and, in message `end`, the blocks
 * before `endBlock`): not already placeholders, at least {@link minMaskableTokens}, and not from a
 * tool `isExcluded` names.
 */
export function collectMaskTargets(
  messages: readonly Message[],
  counter: TokenCounter,
  {
    end = messages.length,
    endBlock = 0,
    toolName = () => undefined,
    isExcluded = () => false,
  }: {
    end?: number;
    endBlock?: number;
    toolName?: (toolUseId: string) => string | undefined;
    isExcluded?: (toolName: string) => boolean;
  } = {},
): MaskTarget[] {
  const targets: MaskTarget[] = [];
  for (let messageIndex = 0; messageIndex <= end && messageIndex < messages.length; messageIndex++) {
    const content = messages[messageIndex]!.content;
    if (typeof content === 'string') continue;
    const blocks = messageIndex === end ? content.slice(0, endBlock) : content;
    blocks.forEach((block, blockIndex) => {
      if (block.type !== 'tool_result') return;
      const result = block as ToolResultBlock;
      const name = toolName(result.tool_use_id);
      if (name !== undefined && isExcluded(name)) return;
      const text = toolResultText(result);
      if (archiveIdInPlaceholder(text) !== undefined) return;
      const tokens = counter.countText(text);
      if (tokens >= minMaskableTokens)
        targets.push({ messageIndex, blockIndex, toolUseId: result.tool_use_id, tokens });
    });
  }
  return targets;
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
  const seen = new Set<string>();
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
      // A tool_use_id answered twice (invalid input) must not share one archive item.
      const repeated = seen.has(result.tool_use_id);
      seen.add(result.tool_use_id);
      const { id, known } = context.ids.idFor(
        repeated ? undefined : archiveKey('tool-result', result.tool_use_id),
      );
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
