/**
 * Anthropic `role: "system"` messages inside `messages` (the mid-conversation system messages
 * Claude Code sends, e.g. the list of agent types after the first user message). They are
 * instructions, not conversation: the compactor never summarizes or drops them. They leave the
 * conversation before compaction, count as part of the system prompt, and go back afterwards
 * before the message they stood before (or, when a hard compaction summarized that message, before
 * the first message that survived after it), unchanged.
 */
import type { Message, SystemPrompt, TextBlock } from '../model/messages.js';
import { isPlainObject } from './request-format.js';

/** Where the system messages of a request stood. */
export interface SystemMessagePlaces {
  /** The conversation messages as they came, without the system messages. */
  conversation: readonly Message[];
  /** Each system message with the index (in `conversation`) of the message it stood before. */
  placed: ReadonlyArray<{ message: Record<string, unknown>; before: number }>;
  /** The body index of each conversation message, for paths into the body. */
  bodyIndex: readonly number[];
}

/**
 * System messages among any framework's messages (LangChain's too): the other messages, and each
 * system message with the index of the one it stood before.
 */
export interface SystemMessagesAmong<Item> {
  conversation: readonly Item[];
  placed: ReadonlyArray<{ message: { readonly content?: unknown }; before: number }>;
}

/** True for an Anthropic `role: "system"` message. */
export function isSystemMessage(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && value.role === 'system';
}

/** Takes the system messages out of an Anthropic `messages` array. */
export function splitSystemMessages(messages: readonly unknown[]): SystemMessagePlaces {
  const conversation: Message[] = [];
  const placed: Array<{ message: Record<string, unknown>; before: number }> = [];
  const bodyIndex: number[] = [];
  messages.forEach((message, index) => {
    if (isSystemMessage(message)) placed.push({ message, before: conversation.length });
    else {
      conversation.push(message as Message);
      bodyIndex.push(index);
    }
  });
  return { conversation, placed, bodyIndex };
}

/** The system prompt with the system messages' text after it, for counting and the summarizer. */
export function withSystemMessageText(
  system: SystemPrompt | undefined,
  { placed }: SystemMessagePlaces,
): SystemPrompt | undefined {
  if (placed.length === 0) return system;
  const blocks: TextBlock[] =
    typeof system === 'string' ? [{ type: 'text', text: system }] : [...(system ?? [])];
  for (const { message } of placed) {
    const { content } = message;
    if (typeof content === 'string') blocks.push({ type: 'text', text: content });
    else if (Array.isArray(content)) {
      // Tool additions and removals are not text; their JSON is what they cost.
      for (const block of content) {
        const text = isPlainObject(block) && block.type === 'text' ? block.text : JSON.stringify(block);
        blocks.push({ type: 'text', text: String(text) });
      }
    }
  }
  return blocks;
}

/**
 * Puts the system messages back into compacted messages. When the compaction kept every message
 * in place (`inPlace`: micro and mid rewrite blocks, never move messages), each goes back at its own
 * position; otherwise before the message it stood before if that survived (the same object), else
 * before the first later message that survived, else at the end. A displaced one that a later
 * identical one repeats is left out, unless `keepCopies` (a summary request keeps it, as the
 * request forwarded before held it when the client's copies still differed).
 */
export function placeSystemMessages<Item extends object>(
  compacted: readonly Item[],
  { conversation, placed }: SystemMessagesAmong<Item>,
  { inPlace = false, keepCopies = false }: { inPlace?: boolean; keepCopies?: boolean } = {},
): unknown[] {
  if (placed.length === 0) return compacted.slice();
  const positionOf = new Map(compacted.map((message, index) => [message, index] as const));
  const target = (before: number): number => {
    if (inPlace) return before;
    for (let index = before; index < conversation.length; index++) {
      const position = positionOf.get(conversation[index]!);
      if (position !== undefined) return position;
    }
    return compacted.length;
  };
  const kept =
    inPlace || keepCopies
      ? placed
      : withoutDisplacedCopies(placed, (before) => {
          const own = conversation[before];
          return own !== undefined && !positionOf.has(own);
        });
  const output: unknown[] = [];
  let next = 0;
  compacted.forEach((message, position) => {
    while (next < kept.length && target(kept[next]!.before) <= position) output.push(kept[next++]!.message);
    output.push(message);
  });
  while (next < kept.length) output.push(kept[next++]!.message);
  return output;
}

/**
 * The placed system messages without those a hard compaction displaced (their own message was
 * summarized) that an identical later one repeats: the later copy stands for both.
 */
function withoutDisplacedCopies(
  placed: SystemMessagesAmong<object>['placed'],
  displaced: (before: number) => boolean,
): SystemMessagesAmong<object>['placed'] {
  const contents = placed.map(({ message }) => JSON.stringify(message.content));
  return placed.filter(
    ({ before }, index) => !displaced(before) || !contents.slice(index + 1).includes(contents[index]!),
  );
}

/** How many cache breakpoints the system messages carry. */
export function countSystemMessageBreakpoints({ placed }: SystemMessagePlaces): number {
  let count = 0;
  for (const { message } of placed) {
    if (Array.isArray(message.content))
      count += message.content.filter(
        (block) => isPlainObject(block) && isPlainObject(block.cache_control),
      ).length;
  }
  return count;
}
