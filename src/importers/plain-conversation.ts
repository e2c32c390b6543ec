/** Importer for plain Anthropic or OpenAI conversation files (JSON object, JSON array or JSONL). */
import { type ParseConversationOptions, parseConversation } from '../core/conversation/parse-conversation.js';
import type { ParsedConversation } from '../core/wire/parsed-conversation.js';
import { finishImport } from './_finish.js';
import type { ImportedTranscript } from './imported-transcript.js';

/**
 * Reads a plain conversation in Anthropic or OpenAI shape (detected, or forced with `format`).
 * Such files carry no provider usage, so every entry of `usage` is `undefined`.
 *
 * @example
 * const { conversation } = importPlainConversation('[{"role":"user","content":"Hi"}]');
 */
export function importPlainConversation(
  text: string,
  options: ParseConversationOptions = {},
): ImportedTranscript {
  return plainConversationFromParsed(parseConversation(text, options), options.source);
}

/** Turns a conversation `parseConversation` (or `conversationFromValue`) read into a transcript. */
export function plainConversationFromParsed(
  { conversation, format }: ParsedConversation,
  source?: string,
): ImportedTranscript {
  const assistantTurns = conversation.messages.filter((message) => message.role === 'assistant').length;
  return finishImport({
    system: conversation.system,
    messages: conversation.messages,
    usage: new Array(assistantTurns).fill(undefined),
    format,
    source,
  });
}
