import type { ArchiveIds } from '../_internal/archive-ids.js';
import { commonPrefixLength } from '../_internal/common-prefix.js';
import { isPlaceholderText, placeholderTokens } from '../_internal/placeholder.js';
import { safeJson } from '../_internal/text.js';
import { toolCallFact } from '../ledger/tool-call-facts.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { fileReadOf } from '../working-set/file-reads.js';
import { type MaskRule, maskableTokens } from './mask.js';
import { CUT_TEXT_CHARS_PER_TOKEN, ELIDED_INPUT_TOKENS } from './mid.js';
import { type CopyKey, supersedeKey } from './supersede-key.js';

/** A tool result that is still whole and could be masked later. */
export interface PendingResult {
  messageIndex: number;
  blockIndex: number;
  toolUseId: string;
  tokens: number;
  /** Set when the result is a read of one file's text. */
  fileRead?: true;
  /** The call it answers (the latest under its id when it came in; a client may reuse ids). */
  toolUse?: ToolUseBlock;
}

/** Where a tool result is (`message:block`): what names one result when tool call ids repeat. */
export function resultPosition({
  messageIndex,
  blockIndex,
}: {
  messageIndex: number;
  blockIndex: number;
}): string {
  return `${messageIndex}:${blockIndex}`;
}

/** A whole tool result a later copy made stale, and the call holding that newer copy. */
export interface StaleResult extends PendingResult {
  newerToolUseId: string;
}

/**
 * What the compactor knows about the history it returned last time, kept so a call that only
 * appended messages costs only the new messages: which tool_use each id belongs to, where the
 * assistant turns are, and which tool results are still whole, in order.
 */
export class HistoryIndex {
  /** A copy of the references last indexed: callers push onto the array they passed. */
  private snapshot: Message[] = [];
  private readonly toolUses = new Map<string, ToolUseBlock>();
  private assistantPositions: number[] = [];
  /** The tool results still whole that could be masked, oldest first. */
  private pending: PendingResult[] = [];
  /** The message index of every tool result, in order (the mid layer keeps the last few). */
  private toolResultPositions: number[] = [];
  /** Long assistant text and large tool inputs the mid layer would shorten, with running totals. */
  private condensablePositions: number[] = [];
  private condensableTotals: number[] = [];
  /** The newest copy of each file or command output seen (see `supersedeKey`). */
  private latestCopy = new Map<string, { toolUseId: string; entry: PendingResult | undefined }>();
  /** The keys of the copies of a file's parts, by the file's key: a copy of the whole supersedes them. */
  private partCopies = new Map<string, Set<string>>();
  /** Results a later copy made stale, oldest first. */
  private stale: StaleResult[] = [];
  /** Results no longer whole: masked, or pointed at their newer copy. */
  private readonly replaced = new Set<string>();

  constructor(
    private readonly counter: TokenCounter,
    private readonly rule: MaskRule,
    private readonly ids: ArchiveIds,
    private readonly condensable: { maxAssistantChars: number; maxToolInputTokens: number },
  ) {}

  /**
   * A cheap estimate of what the mid layer would free, from what the index already knows, so a
   * history over the mid threshold does not pay for a whole mid plan on every turn.
   */
  estimateMidFreed(keepToolResults: number): number {
    const positions = this.toolResultPositions;
    const resultBoundary =
      positions.length >= keepToolResults ? positions[positions.length - keepToolResults]! : -1;
    let freed = 0;
    for (const entry of this.pending) {
      if (entry.messageIndex >= resultBoundary) break;
      freed += entry.tokens - placeholderTokens;
    }
    // As planMid: older means before the assistant message whose call the oldest kept result
    // answers (or before the last assistant message when every result is kept).
    const assistantBefore = resultBoundary >= 0 ? resultBoundary : Number.POSITIVE_INFINITY;
    const assistantCount = lowerBound(this.assistantPositions, assistantBefore);
    const assistantBoundary = assistantCount > 0 ? this.assistantPositions[assistantCount - 1]! : 0;
    const count = lowerBound(this.condensablePositions, assistantBoundary);
    return freed + (count > 0 ? this.condensableTotals[count - 1]! : 0);
  }

  /** Brings the index up to date with `messages`, touching only what changed since the last sync. */
  sync(messages: readonly Message[]): void {
    const common = commonPrefixLength(this.snapshot, messages);
    if (common < this.snapshot.length) this.reset();
    for (let index = this.snapshot.length; index < messages.length; index++) {
      const message = messages[index]!;
      this.add(message, index);
      this.snapshot.push(message);
    }
  }

  /** The tool_use a result answers, when it is in the history. */
  toolUse(id: string): ToolUseBlock | undefined {
    return this.toolUses.get(id);
  }

  /** Whole tool results in messages before `beforeIndex`, oldest first. */
  pendingBefore(beforeIndex: number): PendingResult[] {
    const eligible: PendingResult[] = [];
    for (const entry of this.pending) {
      if (entry.messageIndex >= beforeIndex) break;
      eligible.push(entry);
    }
    return eligible;
  }

  /** Whole tool results in messages from `fromIndex` on, newest first (read from the end). */
  pendingSince(fromIndex: number): PendingResult[] {
    const recent: PendingResult[] = [];
    for (let position = this.pending.length - 1; position >= 0; position--) {
      const entry = this.pending[position]!;
      if (entry.messageIndex < fromIndex) break;
      recent.push(entry);
    }
    return recent;
  }

  /** Whole results a later copy made stale and that are not replaced yet, oldest first. */
  staleResults(): StaleResult[] {
    return this.stale.filter((entry) => !this.replaced.has(resultPosition(entry)));
  }

  /**
   * Marks results replaced (masked, or pointed at their newer copy), by {@link resultPosition}: no
   * longer whole. By position, not id: a client that reuses a tool call id has other results under it.
   */
  markReplaced(positions: readonly string[]): void {
    if (positions.length === 0) return;
    for (const position of positions) this.replaced.add(position);
    this.pending = this.pending.filter((entry) => !this.replaced.has(resultPosition(entry)));
    this.stale = this.stale.filter((entry) => !this.replaced.has(resultPosition(entry)));
  }

  /** Replaces the snapshot after the compactor rewrote messages in place (same length, same order). */
  adopt(messages: readonly Message[]): void {
    this.snapshot = messages.slice();
  }

  /**
   * The index of the first message of the last `keepTurns` assistant turns: tool results before it
   * are old enough to mask. 0 when there are not more turns than that.
   */
  keepBoundary(keepTurns: number): number {
    if (keepTurns <= 0) return this.snapshot.length;
    const position = this.assistantPositions[this.assistantPositions.length - keepTurns];
    return this.assistantPositions.length > keepTurns && position !== undefined ? position : 0;
  }

  /** Forgets everything, e.g. after a call failed part-way through {@link HistoryIndex.sync}. */
  reset(): void {
    this.snapshot = [];
    this.toolUses.clear();
    this.assistantPositions = [];
    this.pending = [];
    this.toolResultPositions = [];
    this.condensablePositions = [];
    this.condensableTotals = [];
    this.latestCopy = new Map();
    this.partCopies = new Map();
    this.stale = [];
    this.replaced.clear();
  }

  private addCondensable(index: number, freed: number): void {
    if (freed <= 0) return;
    this.condensablePositions.push(index);
    this.condensableTotals.push((this.condensableTotals[this.condensableTotals.length - 1] ?? 0) + freed);
  }

  /**
   * A newer copy of a file or output makes the previous one stale (when that one is worth
   * replacing); a copy of a whole file also makes the copies of its parts stale.
   */
  private recordCopy(copy: CopyKey | undefined, toolUseId: string, entry: PendingResult | undefined): void {
    if (copy === undefined) return;
    this.supersede(copy.key, toolUseId);
    this.latestCopy.set(copy.key, { toolUseId, entry });
    if (copy.partOf !== undefined) {
      this.partCopies.set(copy.partOf, (this.partCopies.get(copy.partOf) ?? new Set()).add(copy.key));
      return;
    }
    for (const part of this.partCopies.get(copy.key) ?? []) {
      this.supersede(part, toolUseId);
      this.latestCopy.delete(part);
    }
    this.partCopies.delete(copy.key);
  }

  /** Marks the latest copy under `key` stale, pointing at `newerToolUseId`. */
  private supersede(key: string, newerToolUseId: string): void {
    const previous = this.latestCopy.get(key)?.entry;
    if (previous) this.stale.push({ ...previous, newerToolUseId });
  }

  private add(message: Message, index: number): void {
    if (message.role === 'assistant') this.assistantPositions.push(index);
    if (typeof message.content === 'string') return;
    message.content.forEach((block, blockIndex) => {
      if (block.type === 'tool_use') {
        const toolUse = block as ToolUseBlock;
        // A second call under one id tells the archive ids the session reuses them.
        if (this.toolUses.has(toolUse.id)) this.ids.noteReusedIds();
        this.toolUses.set(toolUse.id, toolUse);
        const input = safeJson(toolUse.input);
        // Inputs under a quarter of the limit in characters cannot be over it in tokens.
        if (input.length > this.condensable.maxToolInputTokens) {
          const tokens = this.counter.countText(input);
          if (tokens > this.condensable.maxToolInputTokens)
            this.addCondensable(index, tokens - ELIDED_INPUT_TOKENS);
        }
      } else if (block.type === 'text' && message.role === 'assistant') {
        const text = typeof block.text === 'string' ? block.text : '';
        if (text.length > this.condensable.maxAssistantChars && !isPlaceholderText(text)) {
          const kept = this.condensable.maxAssistantChars / CUT_TEXT_CHARS_PER_TOKEN;
          this.addCondensable(index, this.counter.countText(text) - kept);
        }
      } else if (block.type === 'tool_result') {
        this.addToolResult(block as ToolResultBlock, index, blockIndex);
      }
    });
  }

  /** A result is pending while it could be masked, and the newest copy of what it shows. */
  private addToolResult(result: ToolResultBlock, index: number, blockIndex: number): void {
    this.toolResultPositions.push(index);
    const toolUse = this.toolUses.get(result.tool_use_id);
    const tokens = maskableTokens(result, toolUse?.name, this.counter, this.rule, this.ids);
    // What the call did, read once for staleness and for file reads.
    const fact = toolUse && toolCallFact(toolUse);
    const fileRead =
      fact !== undefined && result.is_error !== true && fileReadOf(toolUse!, fact) !== undefined;
    const entry: PendingResult | undefined =
      tokens === undefined
        ? undefined
        : {
            messageIndex: index,
            blockIndex,
            toolUseId: result.tool_use_id,
            tokens,
            ...(fileRead ? { fileRead: true } : {}),
            ...(toolUse ? { toolUse } : {}),
          };
    this.recordCopy(toolUse && supersedeKey(fact, result, toolUse), result.tool_use_id, entry);
    if (entry) this.pending.push(entry);
  }
}

/** The number of entries in a sorted array that are smaller than `value`. */
function lowerBound(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
