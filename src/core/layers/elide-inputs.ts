/**
 * Large `tool_use` inputs with their large fields elided (the originals archived), and the block
 * rewrites mid and hard apply: mid on the older turns, hard on the turn it keeps.
 */
import { archiveKey, originalPrint } from '../_internal/archive-ids.js';
import { elidedInputText, isElidedField } from '../_internal/placeholder.js';
import { safeJson } from '../_internal/text.js';
import type { ArchiveItem } from '../archive/archive-store.js';
import type { ContentBlock, Message, ToolUseBlock } from '../model/messages.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { namedId, type RewriteContext } from './mask.js';
import { inputDetails } from './placeholder-details.js';

/** A field is elided when it holds more than this share of `maxToolInputTokens`. */
const LARGE_FIELD_SHARE = 1 / 4;

/** One block rewrite: the new block at a position. */
export interface BlockRewrite {
  messageIndex: number;
  blockIndex: number;
  block: ContentBlock;
}

/** Large `tool_use` inputs before `assistantEnd`, their large fields elided. */
export function elideOlderInputs(
  messages: readonly Message[],
  assistantEnd: number,
  settings: { maxToolInputTokens: number },
  counter: TokenCounter,
  context: RewriteContext,
): { rewrites: BlockRewrite[]; items: ArchiveItem[]; freedTokens: number } {
  const rewrites: BlockRewrite[] = [];
  const items: ArchiveItem[] = [];
  let freedTokens = 0;
  forEachOlderAssistantBlock(messages, assistantEnd, (block, messageIndex, blockIndex) => {
    if (block.type !== 'tool_use') return;
    const toolUse = block as ToolUseBlock;
    const elided = elideLargeInput(toolUse, settings.maxToolInputTokens, counter, context);
    if (!elided) return;
    if (!elided.known) {
      items.push({
        id: elided.id,
        sessionId: context.sessionId,
        kind: 'tool-input',
        createdAt: context.now,
        toolUseId: toolUse.id,
        toolName: toolUse.name,
        block: toolUse,
      });
    }
    freedTokens += elided.freedTokens;
    rewrites.push({ messageIndex, blockIndex, block: elided.block });
  });
  return { rewrites, items, freedTokens };
}

export function forEachOlderAssistantBlock(
  messages: readonly Message[],
  assistantEnd: number,
  visit: (block: ContentBlock, messageIndex: number, blockIndex: number) => void,
): void {
  for (let messageIndex = 0; messageIndex < assistantEnd; messageIndex++) {
    const message = messages[messageIndex]!;
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    message.content.forEach((block, blockIndex) => {
      visit(block, messageIndex, blockIndex);
    });
  }
}

/** A new history with the rewritten blocks in place; other messages stay the same objects. */
export function applyRewrites(messages: Message[], rewrites: readonly BlockRewrite[]): Message[] {
  const output = messages.slice();
  for (const { messageIndex, blockIndex, block } of rewrites) {
    const message = output[messageIndex]!;
    if (typeof message.content === 'string') continue;
    const content = message.content.slice();
    content[blockIndex] = block;
    output[messageIndex] = { ...message, content };
  }
  return output;
}

function elideLargeInput(
  toolUse: ToolUseBlock,
  maxTokens: number,
  counter: TokenCounter,
  context: RewriteContext,
): { block: ToolUseBlock; id: string; known: boolean; freedTokens: number } | undefined {
  const input = toolUse.input;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const total = counter.countText(safeJson(input));
  if (total <= maxTokens) return undefined;
  const record = input as Record<string, unknown>;
  const large = Object.entries(record).flatMap(([name, value]) => {
    if (isElidedField(value)) return [];
    const tokens = counter.countText(typeof value === 'string' ? value : safeJson(value));
    return tokens > maxTokens * LARGE_FIELD_SHARE ? [{ name, value, tokens }] : [];
  });
  if (large.length === 0) return undefined;
  // Two inputs under one tool_use id (a reused id) differ in their print: an id each. An input
  // elided before keeps the id of its original (archived whole under it).
  const { id, known } = context.ids.idFor(
    archiveKey('tool-input', toolUse.id),
    Object.values(record).some(isElidedField)
      ? undefined
      : originalPrint(toolUse, context.reusesIds?.() === true),
  );
  const elided: Record<string, unknown> = { ...record };
  for (const { name, value, tokens } of large)
    elided[name] = elidedInputText(value, tokens, namedId(context, id), inputDetails(toolUse, value));
  const freedTokens = total - counter.countText(safeJson(elided));
  // Small fields (a low maxToolInputTokens) can cost less than their placeholders: keep them.
  if (freedTokens <= 0) return undefined;
  return { block: { ...toolUse, input: elided }, id, known, freedTokens };
}
