/**
 * A Gemini function response the compactor rewrote (a placeholder is a new block, without the part
 * it was read from) given back the data of the part it stands for, so the writer keeps the fields
 * beside `response` (its own `id`, `willContinue`, `scheduling`) and their spelling. Both writers of
 * a compacted conversation use it: a request body's and a conversation file's.
 */
import type { Message, ToolResultBlock } from '../../model/messages.js';
import { GEMINI_DATA_KEY, type GeminiBlockData, geminiDataOf } from './gemini-format.js';

/**
 * `compacted` with each tool result that lost its part's data (one the compactor wrote) given the
 * data of the result of the same `tool_use_id` in `read`, the messages the conversation was read as.
 */
export function withReadResponses(
  compacted: readonly Message[],
  read: readonly Message[],
): readonly Message[] {
  const readParts = responseDataById(read);
  if (readParts.size === 0) return compacted;
  return compacted.map((message) => {
    if (typeof message.content === 'string') return message;
    const content = message.content.map((block) => {
      if (block.type !== 'tool_result' || geminiDataOf(block)) return block;
      const result = block as ToolResultBlock;
      const data = readParts.get(result.tool_use_id);
      return data
        ? { ...result, provider_data: { ...result.provider_data, [GEMINI_DATA_KEY]: data } }
        : block;
    });
    return { ...message, content };
  });
}

/** The data of each response the client sent, by its tool_use_id; none for an id two of them answer. */
function responseDataById(read: readonly Message[]): Map<string, GeminiBlockData | undefined> {
  const byId = new Map<string, GeminiBlockData | undefined>();
  for (const message of read) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const id = (block as ToolResultBlock).tool_use_id;
      byId.set(id, byId.has(id) ? undefined : geminiDataOf(block));
    }
  }
  return byId;
}
