/**
 * The next-need probe: at a compaction point, of what the agent used in its next N tool calls that
 * the history before the point already held, the share the compacted context still shows. A
 * survival probe asks what of the past is kept; this one asks what the agent needed to go on. The
 * same rules for every strategy and for the agents' own compactions (docs/simulate.md "Next need"):
 *
 * - the items of a call are those of `toolCallNeeds` (`next-need-items.ts`); the next N calls are
 *   the first N `tool_use` blocks of the messages from the point on, in order; an item counts once
 *   per point and kind however many of those calls use it;
 * - an item was in the history before the point when a message before the point (or the system
 *   prompt) shows it by the rule below; a command, when a call before the point ran the same command
 *   (first line, whitespace collapsed);
 * - an item is visible when the compacted context's text (system, text, thinking, tool calls' names
 *   and inputs, tool results; escape codes removed, whitespace collapsed — `requestText`) shows it:
 *   a file name or identifier as a case-sensitive whole token (no letter, digit, `_` or `$` just
 *   before or after it), an edit text or command as a case-sensitive substring.
 */

import type { Message, SystemPrompt, ToolUseBlock } from 'agent-compact';
import { contentBlocks } from 'agent-compact/wire';
import { requestText } from './key-facts.js';
import { type NeedItems, type NextNeedKind, nextNeedKinds, toolCallNeeds } from './next-need-items.js';
import type { SurvivalRequest } from './survival.js';

export { type NextNeedKind, nextNeedKinds } from './next-need-items.js';

/** Tool calls after the point the probe looks at (issue #32: "the next 40 tool calls"). */
export const defaultNextCalls = 40;

/** How many items of one kind the next calls used that the history held, and how many the context shows. */
export interface NextNeedCount {
  visible: number;
  total: number;
}

/** Next need per kind. */
export type NextNeed = Record<NextNeedKind, NextNeedCount>;

/** No items yet: the start of a sum. */
export function emptyNextNeed(): NextNeed {
  const need = {} as NextNeed;
  for (const kind of nextNeedKinds) need[kind] = { visible: 0, total: 0 };
  return need;
}

/** Adds one count into a running total. */
export function addNextNeed(total: NextNeed, need: NextNeed): void {
  for (const kind of nextNeedKinds) {
    total[kind].visible += need[kind].visible;
    total[kind].total += need[kind].total;
  }
}

/** One kind's items at one point: which the history held and which the context shows. */
export interface NextNeedItem {
  kind: NextNeedKind;
  text: string;
  visible: boolean;
}

/** A transcript prepared for measuring at many points. */
export interface NextNeedProbe {
  /** Next need at the point `index` (the history is `messages.slice(0, index)`) in `context`. */
  measure(index: number, context: SurvivalRequest): NextNeed;
  /** The items counted at `index`, each with whether `context` shows it (for a closer look). */
  items(index: number, context: SurvivalRequest): NextNeedItem[];
}

/** Options of {@link createNextNeedProbe}. */
export interface NextNeedOptions {
  /** Tool calls after the point to look at. @default {@link defaultNextCalls} */
  nextCalls?: number;
}

const tokenChar = /[A-Za-z0-9_$]/;

/** True when `item` occurs in `text` with no letter, digit, `_` or `$` just before or after it. */
export function hasWholeToken(text: string, item: string): boolean {
  if (item === '') return false;
  for (let at = text.indexOf(item); at !== -1; at = text.indexOf(item, at + 1)) {
    const before = at === 0 ? '' : text[at - 1]!;
    const after = text[at + item.length] ?? '';
    if (!tokenChar.test(before) && !tokenChar.test(after)) return true;
  }
  return false;
}

/** The text's tokens (runs of letters, digits, `_`, `$`), for whole-token look-ups of plain words. */
function tokensOf(text: string): Set<string> {
  return new Set(text.match(/[A-Za-z0-9_$]+/g) ?? []);
}

/** True when `text` (with `tokens`, its tokens) shows the item by the kind's rule. */
function shows(kind: NextNeedKind, item: string, text: string, tokens: ReadonlySet<string>): boolean {
  switch (kind) {
    case 'identifiers':
      return /^[A-Za-z0-9_$]+$/.test(item) ? tokens.has(item) : hasWholeToken(text, item);
    case 'files':
      return hasWholeToken(text, item);
    case 'edit-texts':
    case 'commands':
      return text.includes(item);
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown next-need kind ${String(unreachable)}`);
    }
  }
}

/** A tool call and the message it is in. */
interface PlacedCall {
  index: number;
  items: NeedItems;
}

/**
 * Prepares a transcript for the next-need probe: its tool calls with their items, and where each
 * item is first shown (one pass over the messages).
 *
 * @example
 * const probe = createNextNeedProbe({ messages });
 * const need = probe.measure(compaction.index, { messages: compactedContext });
 * console.log(need.identifiers.visible / need.identifiers.total);
 */
export function createNextNeedProbe(
  transcript: { system?: SystemPrompt | undefined; messages: readonly Message[] },
  { nextCalls = defaultNextCalls }: NextNeedOptions = {},
): NextNeedProbe {
  const calls: PlacedCall[] = [];
  transcript.messages.forEach((message, index) => {
    for (const block of contentBlocks(message))
      if (block.type === 'tool_use') calls.push({ index, items: toolCallNeeds(block as ToolUseBlock) });
  });
  const firstSeen = firstShown(transcript, calls);
  /** The items the next calls after `index` use that the history before it held. */
  function needed(index: number): Array<{ kind: NextNeedKind; text: string }> {
    const start = calls.findIndex((call) => call.index >= index);
    if (start === -1) return [];
    const found: Array<{ kind: NextNeedKind; text: string }> = [];
    for (const kind of nextNeedKinds) {
      const used = new Set(calls.slice(start, start + nextCalls).flatMap((call) => call.items[kind]));
      for (const text of used)
        if ((firstSeen[kind].get(text) ?? Number.POSITIVE_INFINITY) < index) found.push({ kind, text });
    }
    return found;
  }
  function items(index: number, context: SurvivalRequest): NextNeedItem[] {
    const found = needed(index);
    if (found.length === 0) return [];
    const text = requestText(context.system, context.messages);
    const tokens = tokensOf(text);
    return found.map((item) => ({ ...item, visible: shows(item.kind, item.text, text, tokens) }));
  }
  return {
    items,
    measure(index, context) {
      const need = emptyNextNeed();
      for (const item of items(index, context)) {
        need[item.kind].total++;
        if (item.visible) need[item.kind].visible++;
      }
      return need;
    },
  };
}

/**
 * For every item of every call, the first message that shows it (-1 for the system prompt); for a
 * command, the first message with a call that ran it.
 */
function firstShown(
  transcript: { system?: SystemPrompt | undefined; messages: readonly Message[] },
  calls: readonly PlacedCall[],
): Record<NextNeedKind, Map<string, number>> {
  const seen = {} as Record<NextNeedKind, Map<string, number>>;
  const pending = {} as Record<NextNeedKind, Set<string>>;
  for (const kind of nextNeedKinds) {
    seen[kind] = new Map();
    pending[kind] = new Set(calls.flatMap((call) => call.items[kind]));
  }
  for (const call of calls)
    for (const command of call.items.commands)
      if (!seen.commands.has(command)) seen.commands.set(command, call.index);
  pending.commands.clear();
  const look = (index: number, text: string) => {
    const tokens = tokensOf(text);
    for (const kind of ['files', 'identifiers', 'edit-texts'] as const) {
      for (const item of pending[kind]) {
        if (!shows(kind, item, text, tokens)) continue;
        seen[kind].set(item, index);
        pending[kind].delete(item);
      }
    }
  };
  if (transcript.system !== undefined) look(-1, requestText(transcript.system, []));
  transcript.messages.forEach((message, index) => {
    if (nextNeedKinds.some((kind) => pending[kind].size > 0)) look(index, requestText(undefined, [message]));
  });
  return seen;
}
