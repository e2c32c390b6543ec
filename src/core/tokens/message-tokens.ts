import { type ContentBlock, isKnownBlock, type Message, type SystemPrompt } from '../model/messages.js';
import { IMAGE_TOKENS, inlineMediaTokens, pdfTokens } from './media-tokens.js';
import type { TokenCounter } from './token-counter.js';

export { IMAGE_TOKENS } from './media-tokens.js';

/**
 * Tokens every message costs beyond its content: the role and the delimiters around it. OpenAI's
 * chat format spends 3–4 tokens per message on this; Anthropic's is similar.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Tokens every content block costs beyond its text: its type tag and delimiters, and for tool
 * calls and results the id that ties them together. Not charged for string content, which is sent
 * as one bare text.
 */
export const BLOCK_OVERHEAD_TOKENS = 3;

/**
 * Characters of `redacted_thinking` data per token. The data is encrypted and base64-encoded, so
 * its length only loosely tracks the thinking it hides; four characters per token is the usual
 * rough rate.
 */
export const REDACTED_THINKING_CHARACTERS_PER_TOKEN = 4;

/** Tokens of one block's content, without {@link BLOCK_OVERHEAD_TOKENS}. */
export function blockContentTokens(block: ContentBlock, counter: TokenCounter): number {
  // A block of a type this library does not model still reaches the provider; its JSON is the best
  // measure of what it carries, but for the files in it, billed by their size or pages.
  if (!isKnownBlock(block)) return unknownBlockTokens(block, counter);
  switch (block.type) {
    case 'text':
      return counter.countText(block.text);
    case 'thinking':
      return counter.countText(block.thinking);
    case 'redacted_thinking':
      return Math.ceil(block.data.length / REDACTED_THINKING_CHARACTERS_PER_TOKEN);
    case 'image': {
      const { source } = block;
      const pdf = source.type === 'base64' && source.media_type === 'application/pdf';
      return pdf && typeof source.data === 'string' ? pdfTokens(source.data) : IMAGE_TOKENS;
    }
    case 'tool_use':
      return counter.countText(block.name) + counter.countText(JSON.stringify(block.input ?? {}));
    case 'tool_result': {
      if (block.content === undefined) return 0;
      if (typeof block.content === 'string') return counter.countText(block.content);
      let tokens = 0;
      for (const inner of block.content) tokens += BLOCK_OVERHEAD_TOKENS + blockContentTokens(inner, counter);
      return tokens;
    }
    default: {
      const unreachable: never = block;
      return unreachable;
    }
  }
}

/** A block of unknown type: its JSON, each inline image or PDF in it at what it is billed. */
function unknownBlockTokens(block: ContentBlock, counter: TokenCounter): number {
  let media = 0;
  const json = JSON.stringify(block, (_key, value: unknown) => {
    if (typeof value !== 'string') return value;
    const tokens = inlineMediaTokens(value);
    if (tokens === undefined) return value;
    media += tokens;
    return '';
  });
  return counter.countText(json) + media;
}

/**
 * Tokens of one message: {@link MESSAGE_OVERHEAD_TOKENS}, plus for each block
 * {@link BLOCK_OVERHEAD_TOKENS} and the tokens of what the block carries — text, thinking text, a
 * tool call's name and the JSON of its input, a tool result's content, {@link IMAGE_TOKENS} per
 * image (a PDF by its pages), the data length of redacted thinking, and the JSON of blocks of
 * unknown type with their inline images and PDFs counted the same way. The message
 * itself is never serialized, so ids, signatures and field names are not counted as text.
 *
 * @example
 * import { countMessageTokens, createHeuristicCounter } from 'agent-compact/counters';
 *
 * const tokens = countMessageTokens(
 *   { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }] },
 *   createHeuristicCounter(),
 * );
 */
export function countMessageTokens(message: Message, counter: TokenCounter): number {
  if (typeof message.content === 'string')
    return MESSAGE_OVERHEAD_TOKENS + counter.countText(message.content);
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const block of message.content) tokens += BLOCK_OVERHEAD_TOKENS + blockContentTokens(block, counter);
  return tokens;
}

/** Tokens of a run of messages: each counted by {@link countMessageTokens}. */
export function countMessagesTokens(messages: readonly Message[], counter: TokenCounter): number {
  let tokens = 0;
  for (const message of messages) tokens += countMessageTokens(message, counter);
  return tokens;
}

/**
 * Tokens of a system prompt: {@link MESSAGE_OVERHEAD_TOKENS} plus its text (a string), or plus
 * {@link BLOCK_OVERHEAD_TOKENS} and the text of each block. No system prompt (or an empty one)
 * costs nothing.
 *
 * @example
 * import { countSystemTokens, createHeuristicCounter } from 'agent-compact/counters';
 *
 * countSystemTokens('You are a careful coding agent.', createHeuristicCounter());
 */
export function countSystemTokens(system: SystemPrompt | undefined, counter: TokenCounter): number {
  if (system === undefined || system.length === 0) return 0;
  if (typeof system === 'string') return MESSAGE_OVERHEAD_TOKENS + counter.countText(system);
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const block of system) tokens += BLOCK_OVERHEAD_TOKENS + counter.countText(block.text);
  return tokens;
}
