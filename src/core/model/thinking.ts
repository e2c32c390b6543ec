/**
 * Leaving thinking out of a history: what a model with preserved thinking takes once the prefix a
 * block was written on changed (`layers/thinking-after-change.ts`), or when that prefix is unknown.
 */
import { type ContentBlock, isThinkingBlock, type Message } from './messages.js';

/** What an assistant message that held nothing but thinking says instead (the API refuses empty content). */
export const omittedThinkingText = '(thinking omitted)';

/** The messages with no thinking block from `first` on (the same array when there was none). */
export function withoutThinkingFrom(
  output: readonly Message[],
  first: number,
): { messages: Message[]; removed: number } {
  let removed = 0;
  const messages = output.map((message, index) => {
    if (index < first || message.role !== 'assistant' || !Array.isArray(message.content)) return message;
    const kept = message.content.filter((block) => !isThinkingBlock(block));
    if (kept.length === message.content.length) return message;
    removed += message.content.length - kept.length;
    const content: ContentBlock[] = kept.length > 0 ? kept : [{ type: 'text', text: omittedThinkingText }];
    return { ...message, content };
  });
  return { messages: removed === 0 ? (output as Message[]) : messages, removed };
}
