import { describe, expect, it } from 'vitest';
import type { ContentBlock, Message } from '../model/messages.js';
import {
  BLOCK_OVERHEAD_TOKENS,
  countMessageTokens,
  countSystemTokens,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  REDACTED_THINKING_CHARACTERS_PER_TOKEN,
} from './message-tokens.js';
import type { TokenCounter } from './token-counter.js';

// One token per character makes every expected count readable from the text itself.
const characters: TokenCounter = {
  specificationVersion: 'v1',
  name: 'characters',
  countText: (text) => text.length,
};
const message = MESSAGE_OVERHEAD_TOKENS;
const block = BLOCK_OVERHEAD_TOKENS;

describe('countMessageTokens', () => {
  it('counts string content as the text plus the message overhead, without block overhead', () => {
    expect(countMessageTokens({ role: 'user', content: 'hello' }, characters)).toBe(message + 5);
  });

  it.each<[string, ContentBlock, number]>([
    ['text', { type: 'text', text: 'hello' }, 5],
    [
      'thinking text, not its signature',
      { type: 'thinking', thinking: 'hmm', signature: 'x'.repeat(500) },
      3,
    ],
    [
      'redacted thinking by data length',
      { type: 'redacted_thinking', data: 'a'.repeat(41) },
      Math.ceil(41 / REDACTED_THINKING_CHARACTERS_PER_TOKEN),
    ],
    [
      'an image of unknown size as a fixed estimate',
      { type: 'image', source: { type: 'url', url: 'u' } },
      IMAGE_TOKENS,
    ],
    [
      'tool_use as name plus the JSON of its input, not its id',
      { type: 'tool_use', id: 'toolu_0123456789', name: 'bash', input: { command: 'ls' } },
      'bash'.length + '{"command":"ls"}'.length,
    ],
    ['tool_result with string content', { type: 'tool_result', tool_use_id: 'toolu_1', content: 'out' }, 3],
    ['tool_result without content', { type: 'tool_result', tool_use_id: 'toolu_1' }, 0],
    [
      'tool_result with blocks, each with its overhead',
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [
          { type: 'text', text: 'ab' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'x'.repeat(9999) } },
        ],
      },
      block + 2 + block + IMAGE_TOKENS,
    ],
    [
      'a block of unknown type by its JSON',
      { type: 'document', title: 't' },
      '{"type":"document","title":"t"}'.length,
    ],
  ])('counts %s', (_case, contentBlock, contentTokens) => {
    const counted = countMessageTokens({ role: 'user', content: [contentBlock] }, characters);
    expect(counted).toBe(message + block + contentTokens);
  });

  it('adds the blocks of one message up', () => {
    const twoBlocks: Message = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'abc' },
        { type: 'tool_use', id: 't', name: 'x', input: {} },
      ],
    };
    expect(countMessageTokens(twoBlocks, characters)).toBe(message + block + 3 + block + 1 + 2);
  });

  it('counts far less than the JSON of a message heavy with ids and signatures', () => {
    const heavy: Message = {
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'short', signature: 'S'.repeat(2000) }],
    };
    expect(countMessageTokens(heavy, characters)).toBeLessThan(JSON.stringify(heavy).length / 10);
  });
});

describe('countSystemTokens', () => {
  it.each<[string, Parameters<typeof countSystemTokens>[0], number]>([
    ['no system prompt', undefined, 0],
    ['an empty string', '', 0],
    ['an empty block list', [], 0],
    ['a string', 'be brief', message + 8],
    [
      'text blocks, each with its overhead',
      [
        { type: 'text', text: 'be' },
        { type: 'text', text: 'brief' },
      ],
      message + block + 2 + block + 5,
    ],
  ])('counts %s', (_case, system, expected) => {
    expect(countSystemTokens(system, characters)).toBe(expected);
  });
});
