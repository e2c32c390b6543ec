import { describe, expect, it } from 'vitest';
import type { ValidationRule } from '../model/problems.js';
import type { OpenAIChatMessage } from './openai-types.js';
import { validateMessages } from './validate.js';
import { found } from './validate.test-utils.js';

describe('validateMessages (openai)', () => {
  const call = (id: string) => ({
    id,
    type: 'function' as const,
    function: { name: 'bash', arguments: '{}' },
  });

  it('accepts a tool round trip with system, developer and parallel calls', () => {
    const messages: OpenAIChatMessage[] = [
      { role: 'system', content: 'be brief' },
      { role: 'developer', content: 'really' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('c1'), call('c2')] },
      { role: 'tool', tool_call_id: 'c2', content: 'b' },
      { role: 'tool', tool_call_id: 'c1', content: 'a' },
      { role: 'assistant', content: 'done' },
    ];
    expect(validateMessages(messages, { format: 'openai' })).toEqual([]);
  });

  it.each<[string, unknown, [ValidationRule, string][]]>([
    ['not an array', 'x', [['messages-not-array', 'messages']]],
    ['a null message', [null], [['message-not-object', 'messages[0]']]],
    ['an unknown role', [{ role: 'function', content: 'x' }], [['invalid-role', 'messages[0].role']]],
    [
      'user content of the wrong type',
      [{ role: 'user', content: 1 }],
      [['invalid-content', 'messages[0].content']],
    ],
    [
      'content parts that are no part objects',
      [
        { role: 'user', content: [null, { type: 'text', text: 'go' }] },
        { role: 'assistant', content: ['x'] },
        { role: 'user', content: [{ text: 'no type' }] },
      ],
      [
        ['invalid-block', 'messages[0].content[0]'],
        ['invalid-block', 'messages[1].content[0]'],
        ['invalid-block', 'messages[2].content[0]'],
      ],
    ],
    [
      'an unanswered tool call',
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: [call('c1')] },
        { role: 'user', content: 'x' },
      ],
      [['unanswered-tool-call', 'messages[1].tool_calls[0]']],
    ],
    [
      'a tool call unanswered at the end',
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: [call('c1')] },
      ],
      [['unanswered-tool-call', 'messages[1].tool_calls[0]']],
    ],
    [
      'an orphan tool message',
      [
        { role: 'user', content: 'go' },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
      ],
      [['orphan-tool-message', 'messages[1]']],
    ],
    [
      'a tool message answering a call of another assistant message',
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: [call('c1')] },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
        { role: 'assistant', content: 'ok' },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
      ],
      [['orphan-tool-message', 'messages[4]']],
    ],
    [
      'two tool messages for one call',
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: [call('c1')] },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
        { role: 'tool', tool_call_id: 'c1', content: 'y' },
      ],
      [['duplicate-tool-message', 'messages[3]']],
    ],
    [
      'a duplicate tool call id',
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: [call('c1')] },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
        { role: 'assistant', tool_calls: [call('c1')] },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
      ],
      [['duplicate-tool-call-id', 'messages[3].tool_calls[0]']],
    ],
    [
      'a tool message without tool_call_id',
      [{ role: 'tool', content: 'x' }],
      [['invalid-tool-message', 'messages[0].tool_call_id']],
    ],
    [
      'a tool call without arguments',
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: [{ id: 'c1', function: { name: 'x' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
      ],
      [['invalid-tool-call', 'messages[1].tool_calls[0]']],
    ],
    [
      'an empty tool_calls array with content',
      [{ role: 'assistant', content: 'x', tool_calls: [] }],
      [['invalid-tool-call', 'messages[0].tool_calls']],
    ],
    [
      'an assistant message with nothing',
      [{ role: 'assistant', content: null }],
      [['empty-assistant-message', 'messages[0]']],
    ],
    ['an assistant message with only a refusal', [{ role: 'assistant', refusal: 'no' }], []],
  ])('reports %s', (_name, messages, expected) => {
    expect(found(messages, { format: 'openai' })).toEqual(expected);
  });
});
