/** Telling a conversation's wire format from its messages alone. */

import type { WireFormat } from '../model/wire-format.js';
import { isObject } from './_internal/read-helpers.js';
import { isGeminiContent } from './gemini/gemini-conversation.js';
import { hasResponsesMark } from './responses/read-responses.js';

/**
 * Guesses the wire format of raw messages: a Responses item or a Gemini content says so; otherwise
 * Anthropic or OpenAI Chat by their roles and block types. Messages that only carry string content
 * are the same in both; they count as Anthropic.
 *
 * @example
 * detectFormat([{ role: 'tool', tool_call_id: 'call_1', content: 'ok' }]); // 'openai'
 */
export function detectFormat(messages: readonly unknown[]): WireFormat {
  if (messages.some(hasResponsesMark)) return 'responses';
  if (messages.some(isGeminiContent)) return 'gemini';
  for (const message of messages) {
    if (!isObject(message)) continue;
    const { role } = message;
    if (role === 'system' || role === 'developer' || role === 'tool') return 'openai';
    if (Object.hasOwn(message, 'tool_calls') || Object.hasOwn(message, 'tool_call_id')) return 'openai';
    if (message.content === null) return 'openai';
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (!isObject(part)) continue;
      const { type } = part;
      if (type === 'image_url' || type === 'input_audio' || type === 'file' || type === 'refusal')
        return 'openai';
      if (
        type === 'tool_use' ||
        type === 'tool_result' ||
        type === 'thinking' ||
        type === 'redacted_thinking'
      ) {
        return 'anthropic';
      }
      if (type === 'image' || type === 'document') return 'anthropic';
    }
  }
  return 'anthropic';
}
