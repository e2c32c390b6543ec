import { describe, expect, it } from 'vitest';
import type { ContentBlock } from '../model/messages.js';
import type { ValidationRule } from '../model/problems.js';
import { found } from './validate.test-utils.js';

const text = (value: string): ContentBlock => ({ type: 'text', text: value });
const user = (...content: ContentBlock[]) => ({ role: 'user' as const, content });

// Block types the library does not otherwise read pass as they are, once they hold the fields the
// API requires of them: without those the provider answers 400, and the token count has nothing to read.
describe('validateMessages: the fields a block type requires (anthropic)', () => {
  it.each<[string, unknown, [ValidationRule, string][]]>([
    [
      'a thinking block without its text or signature',
      [user(text('a')), { role: 'assistant', content: [{ type: 'thinking', signature: 's' }, text('b')] }],
      [['invalid-block', 'messages[1].content[0].thinking']],
    ],
    [
      'a thinking block without a signature, a redacted one without data',
      [
        user(text('a')),
        {
          role: 'assistant',
          content: [{ type: 'thinking', thinking: 't' }, { type: 'redacted_thinking' }, text('b')],
        },
      ],
      [
        ['invalid-block', 'messages[1].content[0].signature'],
        ['invalid-block', 'messages[1].content[1].data'],
      ],
    ],
    [
      'an image or a document without a source',
      [{ role: 'user', content: [{ type: 'image' }, { type: 'document', source: null }, text('a')] }],
      [
        ['invalid-block', 'messages[0].content[0].source'],
        ['invalid-block', 'messages[0].content[1].source'],
      ],
    ],
  ])('reports %s', (_name, messages, expected) => {
    expect(found(messages)).toEqual(expected);
  });
});
