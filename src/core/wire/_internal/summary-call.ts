/** Shared pieces of the dialects' summary calls. */
import type { Message, SystemPrompt } from '../../model/messages.js';

/** A request body without its streaming switches: a summary is read in one answer. */
export function withoutStreaming(body: Record<string, unknown>): Record<string, unknown> {
  const { stream: _stream, stream_options: _streamOptions, ...rest } = body;
  return rest;
}

export function withSystem(messages: Message[], system: SystemPrompt | undefined) {
  return system === undefined ? { messages } : { messages, system };
}

/** The text blocks of an Anthropic-style content array, joined. */
export function textOfBlocks(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (block): block is { type: 'text'; text: string } =>
        block?.type === 'text' && typeof block.text === 'string',
    )
    .map((block) => block.text)
    .join('\n');
}
