import type { ArchiveIds } from '../_internal/archive-ids.js';
import { archiveKey, originalPrint } from '../_internal/archive-ids.js';
import {
  archiveIdInPlaceholder,
  isPlaceholderText,
  minMaskableTokens,
  outputOutcome,
  type PlaceholderId,
  shortenedMark,
  supersededPlaceholder,
  type ToolOutcome,
  toolResultPlaceholder,
} from '../_internal/placeholder.js';
import { toolResultText } from '../_internal/text.js';
import type { ArchiveItem } from '../archive/archive-store.js';
import { readShellOutput } from '../ledger/shell-output.js';
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import { blockContentTokens, type IMAGE_TOKENS } from '../tokens/message-tokens.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type OutlineLookup, placeholderDetails } from './placeholder-details.js';

/** What every layer produces: the new history, what it archives, and the tokens it frees. */
export interface LayerPlan {
  messages: Message[];
  items: ArchiveItem[];
  /** Tokens the change frees (local count). */
  freedTokens: number;
}

/** A tool result to replace with its placeholder. */
export interface MaskTarget {
  messageIndex: number;
  blockIndex: number;
  toolUseId: string;
  tokens: number;
  /** Set when a later copy made the result stale: the call holding that copy. */
  newerToolUseId?: string;
  /**
   * The call the result answers, when the finder paired it by position: a client that reuses a
   * tool call id has several calls under it, and the placeholder must name this one.
   */
  toolUse?: ToolUseBlock;
}

/** Context every layer's rewrite needs: ids, the session, and how to find a tool call. */
export interface RewriteContext {
  ids: ArchiveIds;
  sessionId: string;
  now: number;
  toolUse(id: string): ToolUseBlock | undefined;
  /**
   * True when the session reuses tool call ids (`ArchiveIds.reusesIds`): only then do archive ids
   * tell originals under one id apart by what they hold (`originalPrint`, a hash of each).
   */
  reusesIds?(): boolean;
  /** Whether the text the layers write names archive ids (the model has a recall tool). */
  recall: boolean;
  /** The outline the working set already parsed for a file's text, when it has it. */
  parsedOutline?: OutlineLookup;
}

/**
 * The archive id to write into a placeholder: the id when the model can recall it; without recall,
 * none, unless the session reuses tool call ids: two results under one id may then read the same,
 * and only the id tells a rebuild which original each stands for.
 */
export function namedId(context: Pick<RewriteContext, 'recall' | 'reusesIds'>, id: string): PlaceholderId {
  if (context.recall) return id;
  return context.reusesIds?.() === true ? { archived: id } : undefined;
}

/** What decides whether a tool result may be masked; one rule for the index and every layer. */
export interface MaskRule {
  /** Results smaller than this many tokens are never masked. */
  minTokens: number;
  /** Tools whose results are never masked. */
  excludeTools: ReadonlySet<string>;
}

/**
 * Tokens of a tool result's content: its text, plus {@link IMAGE_TOKENS} per image (a PDF by its
 * pages) and what any other part carries (a document). The one size the index, the layers and the
 * placeholders use.
 */
export function toolResultTokens(result: ToolResultBlock, counter: TokenCounter): number {
  let parts = 0;
  if (Array.isArray(result.content)) {
    for (const part of result.content) if (part.type !== 'text') parts += blockContentTokens(part, counter);
  }
  return counter.countText(toolResultText(result)) + parts;
}

/**
 * True when a tool result is a placeholder this session wrote (not text that looks like one): it
 * names the id issued for its call, or, written without an id, its call's result is archived. A
 * result cut to its head and tail is not: it still holds enough to be worth masking later.
 */
export function isOwnPlaceholder(
  result: ToolResultBlock,
  ids: ArchiveIds,
  text = toolResultText(result),
): boolean {
  if (text.includes(shortenedMark)) return false;
  const key = archiveKey('tool-result', result.tool_use_id);
  const id = archiveIdInPlaceholder(text);
  if (id !== undefined) return ids.issued(key, id);
  return isPlaceholderText(text) && ids.holdsKey(key);
}

/**
 * The one "is this result maskable" rule: the tokens of `result` when it is worth masking (not from
 * an excluded tool, not already a placeholder, at least `minTokens` and {@link minMaskableTokens}),
 * otherwise undefined.
 */
export function maskableTokens(
  result: ToolResultBlock,
  toolName: string | undefined,
  counter: TokenCounter,
  rule: MaskRule,
  ids: ArchiveIds,
): number | undefined {
  if (toolName !== undefined && rule.excludeTools.has(toolName)) return undefined;
  if (isOwnPlaceholder(result, ids)) return undefined;
  const tokens = toolResultTokens(result, counter);
  return tokens >= Math.max(rule.minTokens, minMaskableTokens) ? tokens : undefined;
}

/**
 * The maskable tool results in `messages[0..end)` (and, in message `end`, the blocks before
 * `endBlock`), by {@link maskableTokens}.
 */
export function collectMaskTargets(
  messages: readonly Message[],
  counter: TokenCounter,
  rule: MaskRule,
  context: RewriteContext,
  { end = messages.length, endBlock = 0 }: { end?: number; endBlock?: number } = {},
): MaskTarget[] {
  const targets: MaskTarget[] = [];
  // The latest call under each id so far: the one a result answers, whatever later calls reuse it.
  const calls = new Map<string, ToolUseBlock>();
  for (let messageIndex = 0; messageIndex <= end && messageIndex < messages.length; messageIndex++) {
    const content = messages[messageIndex]!.content;
    if (typeof content === 'string') continue;
    const blocks = messageIndex === end ? content.slice(0, endBlock) : content;
    blocks.forEach((block, blockIndex) => {
      if (block.type === 'tool_use') calls.set(String(block.id), block as ToolUseBlock);
      if (block.type !== 'tool_result') return;
      const result = block as ToolResultBlock;
      const toolUse = calls.get(result.tool_use_id) ?? context.toolUse(result.tool_use_id);
      const tokens = maskableTokens(result, toolUse?.name, counter, rule, context.ids);
      if (tokens !== undefined)
        targets.push({
          messageIndex,
          blockIndex,
          toolUseId: result.tool_use_id,
          tokens,
          ...(toolUse ? { toolUse } : {}),
        });
    });
  }
  return targets;
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
  for (const [messageIndex, list] of groupByMessage(targets)) {
    const message = output[messageIndex];
    if (!message || typeof message.content === 'string') continue;
    const content: ContentBlock[] = message.content.slice();
    for (const target of list) {
      const block = content[target.blockIndex];
      if (block?.type !== 'tool_result') continue;
      const result = block as ToolResultBlock;
      const text = toolResultText(result);
      // The index finds results when a call's output comes in, before its archive items are
      // stored: a placeholder of that call's is its own by the next call, and stays as it is.
      if (text.startsWith('[') && isOwnPlaceholder(result, context.ids, text)) continue;
      const toolUse = target.toolUse ?? context.toolUse(result.tool_use_id);
      // Two results under one tool_use id (a reused id) differ in their print: an id each.
      const { id, known } = context.ids.idFor(
        archiveKey('tool-result', result.tool_use_id),
        resultPrint(result, text, context),
      );
      const named = namedId(context, id);
      const placeholder: ToolResultBlock = {
        type: 'tool_result',
        tool_use_id: result.tool_use_id,
        content:
          target.newerToolUseId === undefined
            ? toolResultPlaceholder({
                toolUse,
                result,
                tokens: target.tokens,
                archiveId: named,
                details: placeholderDetails(toolUse, result, context.parsedOutline),
                outcome: unwrappedOutcome(result, text),
              })
            : supersededPlaceholder({ toolUse, newerToolUseId: target.newerToolUseId, archiveId: named }),
        ...(result.is_error === undefined ? {} : { is_error: result.is_error }),
      };
      // A placeholder that names no id (recall off, before the session was seen reusing ids):
      // what it says tells the results of a tool_use id reused later apart in a rebuild.
      const said = named === undefined ? String(placeholder.content) : undefined;
      if (!known) items.push(toolResultItem(result, id, context, toolUse, said));
      content[target.blockIndex] = placeholder;
    }
    output[messageIndex] = { ...message, content };
  }
  return { messages: output, items };
}

/**
 * The outcome of a shell result in a harness's wrapping (Codex, Gemini CLI), read from what the
 * command printed: the wrapping's first line repeats the command, and is no error line.
 */
function unwrappedOutcome(result: ToolResultBlock, text: string): ToolOutcome | undefined {
  const shell = readShellOutput(text);
  return shell && outputOutcome(result.is_error === true, shell.output, shell.exitCode);
}

/**
 * What tells this result from another under the same tool call id (`originalPrint`: a hash once
 * the session reuses ids, else its size); none for a placeholder or a result cut to its head and
 * tail, which keep the id of the original they stand for.
 */
export function resultPrint(
  result: ToolResultBlock,
  text: string,
  context: Pick<RewriteContext, 'reusesIds'>,
): string | undefined {
  // Text this session wrote keeps the id of the original it stands for (a placeholder starts
  // with `[`; a cut result holds the mark).
  if (text.includes(shortenedMark) || (text.startsWith('[') && isPlaceholderText(text))) return undefined;
  return originalPrint(result, context.reusesIds?.() === true, text);
}

/** The archive item holding a tool result whole, under `id`. */
export function toolResultItem(
  result: ToolResultBlock,
  id: string,
  context: RewriteContext,
  toolUse = context.toolUse(result.tool_use_id),
  placeholder?: string,
): ArchiveItem {
  return {
    id,
    sessionId: context.sessionId,
    kind: 'tool-result',
    createdAt: context.now,
    toolUseId: result.tool_use_id,
    ...(toolUse ? { toolName: toolUse.name } : {}),
    block: result,
    ...(placeholder === undefined ? {} : { placeholder }),
  };
}

function groupByMessage(targets: readonly MaskTarget[]): Map<number, MaskTarget[]> {
  const byMessage = new Map<number, MaskTarget[]>();
  for (const target of targets) {
    const list = byMessage.get(target.messageIndex) ?? [];
    list.push(target);
    byMessage.set(target.messageIndex, list);
  }
  return byMessage;
}
