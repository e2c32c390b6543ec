/**
 * The human's requests in a history: what a person wrote in a user message, as against tool
 * results, the bridge a hard compaction leaves, or the summary it wrote. Every layer keeps the
 * latest one verbatim.
 */
import type { ContentBlock, Message, TextBlock } from '../model/messages.js';
import { bridgeText, summaryOpen } from '../summary/summary-format.js';

/**
 * What a message holds as a human request: its blocks, `'summary'` for a hard compaction's summary
 * (no request before it is still current), or undefined for a message no human wrote.
 */
export function humanRequestIn(message: Message): ContentBlock[] | 'summary' | undefined {
  if (message.role !== 'user') return undefined;
  const human = humanBlocks(message);
  if (human.length === 0 || (human.length === 1 && (human[0] as TextBlock).text === bridgeText))
    return undefined;
  if (human.some((block) => block.type === 'text' && (block as TextBlock).text.startsWith(summaryOpen)))
    return 'summary';
  return human;
}

/** The latest human request: the blocks of the last user message a human wrote since the last summary. */
export function latestHumanRequest(messages: readonly Message[]): ContentBlock[] | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const request = humanRequestIn(messages[index]!);
    if (request === 'summary') return undefined;
    if (request) return request;
  }
  return undefined;
}

/** The blocks of a user message that a human wrote (everything but tool results). */
function humanBlocks(message: Message): ContentBlock[] {
  if (typeof message.content === 'string') {
    return message.content.trim() === '' ? [] : [{ type: 'text', text: message.content }];
  }
  return message.content.filter((block) => block.type !== 'tool_result');
}
