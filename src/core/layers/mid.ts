import { archiveKey } from '../_internal/archive-ids.js';
import { collectMaskTargets, maskToolResults, type RewriteContext } from '../_internal/mask-tool-results.js';
import {
  archiveIdInPlaceholder,
  elidedInputText,
  placeholderTokens,
  shortenedNote,
} from '../_internal/placeholder.js';
import { safeJson } from '../_internal/text.js';
import type { ArchiveItem } from '../archive/archive-store.js';
import type { ContentBlock, Message, TextBlock, ToolUseBlock } from '../conversation/types.js';
import type { SummaryModel } from '../summary/summary-model.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** Resolved options of the mid layer. */
export interface MidSettings {
  keepToolResults: number;
  maxAssistantChars: number;
  maxToolInputTokens: number;
  summarizer?: SummaryModel;
  /** Tools whose results are never masked. */
  excludeTools?: ReadonlySet<string>;
}

/** What the mid layer changed. */
export interface MidPlan {
  messages: Message[];
  items: ArchiveItem[];
  /** Tokens the change frees (estimated from the counted originals). */
  freedTokens: number;
}

/**
 * Layer 2: keeps the last `keepToolResults` tool results whole; older tool results become
 * placeholders, long older assistant text is cut to its first sentences (or condensed by
 * `summarizer`), and large older `tool_use` inputs are elided. User messages stay verbatim.
 * Every original goes to the returned archive items. Pure: the input is never changed.
 */
export async function planMidCompaction(
  messages: readonly Message[],
  settings: MidSettings,
  counter: TokenCounter,
  context: RewriteContext,
  signal?: AbortSignal,
): Promise<MidPlan> {
  const boundary = keptResultsBoundary(messages, settings.keepToolResults);
  const targets = collectMaskTargets(messages, counter, {
    end: boundary.messageIndex,
    endBlock: boundary.blockIndex,
    toolName: (id) => context.toolUse(id)?.name,
    ...(settings.excludeTools ? { isExcluded: (name: string) => settings.excludeTools!.has(name) } : {}),
  });
  let freedTokens = targets.reduce((sum, target) => sum + target.tokens - placeholderTokens, 0);
  const masked = maskToolResults(messages, targets, context);
  const output = masked.messages;
  const items = masked.items;

  // The assistant turns before the oldest kept tool result are "older": condense them.
  const longTexts: { messageIndex: number; blockIndex: number; text: string }[] = [];
  for (let messageIndex = 0; messageIndex < boundary.assistantIndex; messageIndex++) {
    const message = output[messageIndex]!;
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    message.content.forEach((block, blockIndex) => {
      if (
        block.type === 'text' &&
        typeof block.text === 'string' &&
        block.text.length > settings.maxAssistantChars
      ) {
        if (archiveIdInPlaceholder(block.text) === undefined)
          longTexts.push({ messageIndex, blockIndex, text: block.text });
      }
    });
  }
  const condensed = settings.summarizer
    ? await condenseWithModel(
        settings.summarizer,
        longTexts.map((entry) => entry.text),
        signal,
      )
    : [];
  const rewrites = new Map<number, Map<number, ContentBlock>>();
  const rewrite = (messageIndex: number, blockIndex: number, block: ContentBlock) => {
    const forMessage = rewrites.get(messageIndex) ?? new Map<number, ContentBlock>();
    forMessage.set(blockIndex, block);
    rewrites.set(messageIndex, forMessage);
  };
  longTexts.forEach((entry, position) => {
    const original = (output[entry.messageIndex]!.content as ContentBlock[])[entry.blockIndex] as TextBlock;
    const { id, known } = context.ids.idFor(archiveKey('assistant-text', undefined, entry.text));
    const tokens = counter.countText(entry.text);
    const short = condensed[position] ?? firstSentences(entry.text, settings.maxAssistantChars);
    const text = `${short}${shortenedNote(id, tokens)}`;
    const saved = tokens - counter.countText(text);
    // A text just over maxAssistantChars can cost less than its cut plus the note: keep it whole.
    if (saved <= 0) return;
    if (!known)
      items.push({
        id,
        sessionId: context.sessionId,
        kind: 'assistant-text',
        createdAt: context.now,
        block: original,
      });
    freedTokens += saved;
    rewrite(entry.messageIndex, entry.blockIndex, { type: 'text', text });
  });

  for (let messageIndex = 0; messageIndex < boundary.assistantIndex; messageIndex++) {
    const message = output[messageIndex]!;
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    message.content.forEach((block, blockIndex) => {
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
      rewrite(messageIndex, blockIndex, elided.block);
    });
  }
  for (const [messageIndex, blocks] of rewrites) {
    const message = output[messageIndex]!;
    const content = (message.content as ContentBlock[]).slice();
    for (const [blockIndex, block] of blocks) content[blockIndex] = block;
    output[messageIndex] = { ...message, content };
  }
  return { messages: output, items, freedTokens };
}

/**
 * Where "older" ends: the position of the oldest kept tool result and the assistant message whose
 * call it answers. Everything before is condensed.
 */
function keptResultsBoundary(
  messages: readonly Message[],
  keep: number,
): { messageIndex: number; blockIndex: number; assistantIndex: number } {
  let seen = 0;
  for (let messageIndex = messages.length - 1; messageIndex >= 0; messageIndex--) {
    const content = messages[messageIndex]!.content;
    if (typeof content === 'string') continue;
    for (let blockIndex = content.length - 1; blockIndex >= 0; blockIndex--) {
      if (content[blockIndex]!.type !== 'tool_result') continue;
      seen++;
      if (seen === keep) {
        const assistantIndex = previousAssistant(messages, messageIndex);
        return { messageIndex, blockIndex, assistantIndex };
      }
    }
  }
  // Fewer tool results than `keep`: all are kept; only assistant text before the last turns is older.
  return { messageIndex: 0, blockIndex: 0, assistantIndex: previousAssistant(messages, messages.length) };
}

function previousAssistant(messages: readonly Message[], before: number): number {
  for (let index = before - 1; index >= 0; index--) if (messages[index]!.role === 'assistant') return index;
  return 0;
}

/** The first sentences of a text that fit in `maxChars` (at least the first one, cut if needed). */
export function firstSentences(text: string, maxChars: number): string {
  const sentences = text.match(/[^.!?\n]+(?:[.!?]+|\n+|$)/g) ?? [text];
  let result = '';
  for (const sentence of sentences) {
    if (result.length + sentence.length > maxChars) break;
    result += sentence;
  }
  if (result.trim() === '') result = text.slice(0, maxChars);
  return result.trim();
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
  const large = Object.entries(record).filter(([, value]) => {
    const text = typeof value === 'string' ? value : safeJson(value);
    return (
      counter.countText(text) > maxTokens / 4 && !(typeof value === 'string' && value.startsWith('[elided:'))
    );
  });
  if (large.length === 0) return undefined;
  const { id, known } = context.ids.idFor(archiveKey('tool-input', toolUse.id));
  const elided: Record<string, unknown> = { ...record };
  for (const [name, value] of large) {
    const text = typeof value === 'string' ? value : safeJson(value);
    elided[name] = elidedInputText(value, counter.countText(text), id);
  }
  const freedTokens = total - counter.countText(safeJson(elided));
  // Small fields (a low maxToolInputTokens) can cost less than their placeholders: keep them.
  if (freedTokens <= 0) return undefined;
  return { block: { ...toolUse, input: elided }, id, known, freedTokens };
}

async function condenseWithModel(
  model: SummaryModel,
  texts: string[],
  signal?: AbortSignal,
): Promise<string[]> {
  if (texts.length === 0) return [];
  const numbered = texts.map((text, index) => `${index + 1}: ${text.replace(/\s+/g, ' ')}`).join('\n\n');
  try {
    const { text } = await model.summarize(
      {
        messages: [
          {
            role: 'user',
            content:
              'Condense each numbered assistant note below to one or two sentences, keeping file paths, ' +
              'commands, identifiers and decisions. Answer with one line per note: "N: condensed text".\n\n' +
              numbered,
          },
        ],
        maxOutputTokens: Math.min(4000, 80 * texts.length + 200),
      },
      signal ? { signal } : {},
    );
    const condensed: string[] = [];
    for (const line of text.split('\n')) {
      const match = /^\s*(\d+)\s*[:.)]\s*(.+)$/.exec(line);
      const index = match ? Number(match[1]) - 1 : -1;
      if (match && index >= 0 && index < texts.length && match[2]!.length < texts[index]!.length) {
        condensed[index] = match[2]!.trim();
      }
    }
    return condensed;
  } catch {
    // The cut to first sentences is the fallback; mid compaction never fails on a model error.
    return [];
  }
}
