/**
 * The kept turn's large tool results, cut to their head and tail. The model has not read them yet
 * (a hard compaction runs before it answers them), so it gets what usually matters — how the output
 * starts and how it ends (a test run's verdict, a file's imports and its last lines) — and a note
 * naming the archive item with the whole of it.
 */
import { archiveKey } from '../_internal/archive-ids.js';
import { shortenedNote } from '../_internal/placeholder.js';
import { formatCount, sliceHead, sliceTail, toolResultText } from '../_internal/text.js';
import type { ArchiveItem } from '../archive/archive-store.js';
import type { ContentBlock, Message, ToolResultBlock } from '../model/messages.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type MaskTarget, namedId, type RewriteContext, resultPrint, toolResultItem } from './mask.js';

/** The share of the kept size that goes to the head; the tail gets the rest. */
const HEAD_SHARE = 0.6;

/**
 * Replaces each targeted result with its head and tail within `keepTokens`, the whole block in the
 * archive. A result with images or that would not get smaller is left whole. Untouched messages
 * are the same objects.
 */
export function shortenToolResults(
  messages: readonly Message[],
  targets: readonly MaskTarget[],
  keepTokens: number,
  counter: TokenCounter,
  context: RewriteContext,
): { messages: Message[]; items: ArchiveItem[] } {
  const output = messages.slice();
  const items: ArchiveItem[] = [];
  for (const target of targets) {
    const message = output[target.messageIndex];
    if (!message || typeof message.content === 'string') continue;
    const result = message.content[target.blockIndex] as ToolResultBlock | undefined;
    if (result?.type !== 'tool_result' || hasImages(result)) continue;
    const text = toolResultText(result);
    const { id, known } = context.ids.idFor(
      archiveKey('tool-result', result.tool_use_id),
      resultPrint(result, text, context),
    );
    const short = headAndTail(text, keepTokens, counter);
    if (short === undefined) continue;
    const shortened = `${short}${shortenedNote(namedId(context, id), target.tokens)}`;
    if (!known) items.push(toolResultItem(result, id, context));
    const content: ContentBlock[] = message.content.slice();
    content[target.blockIndex] = { ...result, content: shortened };
    output[target.messageIndex] = { ...message, content };
  }
  return { messages: output, items };
}

/**
 * The first and last lines of `text` within about `keepTokens`, joined by a line saying how much
 * was cut; undefined when nothing would be cut. A text of few long lines is cut by characters.
 */
export function headAndTail(text: string, keepTokens: number, counter: TokenCounter): string | undefined {
  const lines = text.split('\n');
  const headBudget = Math.floor(keepTokens * HEAD_SHARE);
  const tailBudget = keepTokens - headBudget;
  // Each line is counted once, as the head or the tail reaches it.
  const cost = (index: number) =>
    index < 0 || index >= lines.length ? 0 : counter.countText(lines[index]!) + 1;
  let head = 0;
  for (let used = cost(0); head < lines.length && used <= headBudget; used += cost(head)) head++;
  let tail = lines.length;
  for (let used = cost(tail - 1); tail > head && used <= tailBudget; used += cost(tail - 1)) tail--;
  if (tail <= head) return undefined;
  // A first or last line too long to keep whole: cut by characters instead.
  if (head === 0 || tail === lines.length) return byCharacters(text, keepTokens, counter);
  const cut = lines.slice(head, tail).join('\n');
  const note = `[… ${formatCount(tail - head)} lines (${formatCount(counter.countText(cut))} tokens) cut here …]`;
  return [...lines.slice(0, head), note, ...lines.slice(tail)].join('\n');
}

/** Head and tail by characters, for output without usable line breaks (minified JSON, one long line). */
function byCharacters(text: string, keepTokens: number, counter: TokenCounter): string | undefined {
  const charsPerToken = text.length / Math.max(1, counter.countText(text));
  const keepChars = Math.floor(keepTokens * charsPerToken);
  if (keepChars >= text.length) return undefined;
  const headChars = Math.floor(keepChars * HEAD_SHARE);
  const tailChars = keepChars - headChars;
  const cut = text.length - headChars - tailChars;
  return `${sliceHead(text, headChars)}\n[… ${formatCount(cut)} characters cut here …]\n${sliceTail(text, text.length - tailChars)}`;
}

function hasImages(result: ToolResultBlock): boolean {
  return Array.isArray(result.content) && result.content.some((part) => part.type !== 'text');
}
