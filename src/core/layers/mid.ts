import { archiveKey } from '../_internal/archive-ids.js';
import { withinDeadline } from '../_internal/deadline.js';
import { isPlaceholderText, placeholderTokens, shortenedNote } from '../_internal/placeholder.js';
import { errorLine, escapeReservedTags, sliceHead } from '../_internal/text.js';
import type { ArchiveItem } from '../archive/archive-store.js';
import type { CompactionEvent } from '../events.js';
import { CompactError } from '../model/errors.js';
import type { Message, TextBlock } from '../model/messages.js';
import type { SummaryModel } from '../summary/summary-model.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import {
  applyRewrites,
  type BlockRewrite,
  elideOlderInputs,
  forEachOlderAssistantBlock,
} from './elide-inputs.js';
import {
  collectMaskTargets,
  type LayerPlan,
  type MaskRule,
  maskToolResults,
  namedId,
  type RewriteContext,
} from './mask.js';

/** About what an elided tool input costs after elision (its field names and the `[elided: …]` notes). */
export const ELIDED_INPUT_TOKENS = 60;
/** Characters per token of a cut assistant text, to estimate what cutting to `maxAssistantChars` keeps. */
export const CUT_TEXT_CHARS_PER_TOKEN = 3;
/** Output budget of one condensing call: a line per note plus room for the answer's framing. */
const CONDENSE_TOKENS_PER_NOTE = 80;
const CONDENSE_EXTRA_TOKENS = 200;
const CONDENSE_MAX_TOKENS = 4000;

/** Resolved options of the mid layer. */
export interface MidSettings {
  keepToolResults: number;
  maxAssistantChars: number;
  maxToolInputTokens: number;
  summarizer?: SummaryModel;
  /** How long the summarizer may take to condense (the hard layer's `timeoutMs`). */
  timeoutMs: number;
  /** Which tool results may be masked (shared with micro). */
  rule: MaskRule;
}

/** What the mid layer changed, with the events of its condensing call (as the hard layer's plan). */
export interface MidPlan extends LayerPlan {
  events: CompactionEvent[];
}

/**
 * Layer 2: keeps the last `keepToolResults` tool results whole; older tool results become
 * placeholders, long older assistant text is cut to its first sentences (or condensed by
 * `summarizer`), and large older `tool_use` inputs are elided. User messages stay verbatim.
 * Every original goes to the returned archive items. The input is never changed.
 */
export async function planMid(
  messages: readonly Message[],
  settings: MidSettings,
  counter: TokenCounter,
  context: RewriteContext,
  signal?: AbortSignal,
): Promise<MidPlan> {
  const boundary = keptResultsBoundary(messages, settings.keepToolResults);
  const targets = collectMaskTargets(messages, counter, settings.rule, context, {
    end: boundary.messageIndex,
    endBlock: boundary.blockIndex,
  });
  const masked = maskToolResults(messages, targets, context);
  const texts = await shortenOlderTexts(
    masked.messages,
    boundary.assistantIndex,
    settings,
    counter,
    context,
    signal,
  );
  const inputs = elideOlderInputs(masked.messages, boundary.assistantIndex, settings, counter, context);
  const maskedFreed = targets.reduce((sum, target) => sum + target.tokens - placeholderTokens, 0);
  return {
    messages: applyRewrites(masked.messages, [...texts.rewrites, ...inputs.rewrites]),
    items: [...masked.items, ...texts.items, ...inputs.items],
    freedTokens: maskedFreed + texts.freedTokens + inputs.freedTokens,
    events: texts.events,
  };
}

/** Long assistant text before `assistantEnd`, cut to its first sentences or condensed by the model. */
async function shortenOlderTexts(
  messages: readonly Message[],
  assistantEnd: number,
  settings: MidSettings,
  counter: TokenCounter,
  context: RewriteContext,
  signal: AbortSignal | undefined,
): Promise<{
  rewrites: BlockRewrite[];
  items: ArchiveItem[];
  freedTokens: number;
  events: CompactionEvent[];
}> {
  const longTexts: { messageIndex: number; blockIndex: number; block: TextBlock }[] = [];
  forEachOlderAssistantBlock(messages, assistantEnd, (block, messageIndex, blockIndex) => {
    if (block.type !== 'text' || typeof block.text !== 'string') return;
    if (block.text.length > settings.maxAssistantChars && !isPlaceholderText(block.text))
      longTexts.push({ messageIndex, blockIndex, block: block as TextBlock });
  });
  const { condensed, events } = settings.summarizer
    ? await condenseWithModel(
        settings.summarizer,
        longTexts.map((entry) => entry.block.text),
        settings.timeoutMs,
        signal,
      )
    : { condensed: [], events: [] };
  const rewrites: BlockRewrite[] = [];
  const items: ArchiveItem[] = [];
  let freedTokens = 0;
  longTexts.forEach(({ messageIndex, blockIndex, block }, position) => {
    const { id, known } = context.ids.idFor(archiveKey('assistant-text', undefined, block.text));
    const tokens = counter.countText(block.text);
    const short = condensed[position] ?? firstSentences(block.text, settings.maxAssistantChars);
    const text = `${short}${shortenedNote(namedId(context, id), tokens)}`;
    const saved = tokens - counter.countText(text);
    // A text just over maxAssistantChars can cost less than its cut plus the note: keep it whole.
    if (saved <= 0) return;
    if (!known)
      items.push({
        id,
        sessionId: context.sessionId,
        kind: 'assistant-text',
        createdAt: context.now,
        block,
        placeholder: text,
      });
    freedTokens += saved;
    rewrites.push({ messageIndex, blockIndex, block: { type: 'text', text } });
  });
  return { rewrites, items, freedTokens, events };
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

/**
 * A sentence: a run of text whose `.`, `!` or `?` are inside a word (`attribution.go`, `v1.2`),
 * ended by one followed by whitespace (kept, so paragraphs and code lines stay apart), by a line
 * break, or by the end.
 */
const sentencePattern = /(?:[^.!?\n]|[.!?]+(?=[^\s.!?]))+(?:[.!?]+\s*|\n+|$)/g;

/** The first sentences of a text that fit in `maxChars` (at least the first one, cut if needed). */
export function firstSentences(text: string, maxChars: number): string {
  const sentences = text.match(sentencePattern) ?? [text];
  let result = '';
  for (const sentence of sentences) {
    if (result.length + sentence.length > maxChars) break;
    result += sentence;
  }
  if (result.trim() === '') result = sliceHead(text, maxChars);
  return closedFence(result.trim());
}

/** A cut that ends inside a Markdown code block closes it, so what follows does not read as code. */
function closedFence(text: string): string {
  const fences = text.match(/^\s*```/gm)?.length ?? 0;
  return fences % 2 === 1 ? `${text}\n\`\`\`` : text;
}

/**
 * The notes condensed by the model, one line each, by number; none when the call fails or misses
 * its deadline (the notes are then cut to their first sentences, and a `fallback-used` event says
 * why). Throws only `ABORTED`, when the caller aborts.
 */
async function condenseWithModel(
  model: SummaryModel,
  texts: string[],
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<{ condensed: string[]; events: CompactionEvent[] }> {
  if (texts.length === 0) return { condensed: [], events: [] };
  const numbered = texts.map((text, index) => `${index + 1}: ${text.replace(/\s+/g, ' ')}`).join('\n\n');
  const request = {
    messages: [
      {
        role: 'user' as const,
        content:
          'Condense each numbered assistant note below to one or two sentences, keeping file paths, ' +
          'commands, identifiers and decisions. Answer with one line per note: "N: condensed text".\n\n' +
          numbered,
      },
    ],
    maxOutputTokens: Math.min(
      CONDENSE_MAX_TOKENS,
      CONDENSE_TOKENS_PER_NOTE * texts.length + CONDENSE_EXTRA_TOKENS,
    ),
  };
  let text: unknown;
  try {
    ({ text } = await withinDeadline(
      (callSignal) => model.summarize(request, { signal: callSignal }),
      timeoutMs,
      signal,
    ));
  } catch (error) {
    if (signal?.aborted) throw new CompactError('compaction was aborted', { code: 'ABORTED', cause: error });
    // The cut to first sentences is the fallback; mid compaction never fails on a model error.
    const reason = `mid's condensing model ${model.provider}:${model.modelId} failed: ${errorLine(error)}`;
    return { condensed: [], events: [{ type: 'fallback-used', reason }] };
  }
  return { condensed: condensedLines(typeof text === 'string' ? text : '', texts), events: [] };
}

/** The model's "N: text" lines, each kept when it is shorter than note N; its tags escaped. */
function condensedLines(answer: string, texts: readonly string[]): string[] {
  const condensed: string[] = [];
  for (const line of answer.split('\n')) {
    const match = /^\s*(\d+)\s*[:.)]\s*(.+)$/.exec(line);
    const index = match ? Number(match[1]) - 1 : -1;
    if (match && index >= 0 && index < texts.length && match[2]!.length < texts[index]!.length) {
      condensed[index] = escapeReservedTags(match[2]!.trim());
    }
  }
  return condensed;
}
