/**
 * A Gemini conversation file (`{ systemInstruction, contents }`, a `contents` array or one content
 * per line) read into and written from the canonical model, for the conversation reader.
 */
import type { Conversation, Message } from '../../model/messages.js';
import { isRecord } from '../_internal/validate-helpers.js';
import { fromGeminiContents } from './gemini-format.js';
import { withReadResponses } from './gemini-read-responses.js';
import { toGeminiContents } from './gemini-write.js';

/**
 * The canonical conversation of raw Gemini contents.
 *
 * @throws {CompactError} `UNREADABLE_INPUT` with the path when a content or its `parts` has the
 *   wrong type.
 */
export function geminiConversation(contents: unknown[], systemInstruction: unknown): Conversation {
  const { messages, system } = fromGeminiContents(contents, { systemInstruction });
  return system === undefined ? { messages } : { system, messages };
}

/**
 * Gemini output: `{ contents }` (the system prompt as `systemInstruction`), or one content per line.
 * With `compactedFrom` (the messages as read), a masked response keeps its part's other fields.
 */
export function serializeGemini(
  conversation: Conversation,
  { jsonl, compactedFrom }: { jsonl: boolean; compactedFrom?: readonly Message[] | undefined },
): string {
  const { messages } = conversation;
  const contents = toGeminiContents(compactedFrom ? withReadResponses(messages, compactedFrom) : messages);
  if (jsonl) return `${contents.map((content) => JSON.stringify(content)).join('\n')}\n`;
  const { system } = conversation;
  const parts =
    typeof system === 'string' ? [{ text: system }] : (system ?? []).map((block) => ({ text: block.text }));
  const body = parts.length > 0 ? { systemInstruction: { parts }, contents } : { contents };
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** A Gemini `Content`: a `parts` array and no `content`. */
export function isGeminiContent(message: unknown): boolean {
  return isRecord(message) && Array.isArray(message.parts) && !Object.hasOwn(message, 'content');
}
