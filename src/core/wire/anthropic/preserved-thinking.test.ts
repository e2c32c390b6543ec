import { describe, expect, it } from 'vitest';
import { checksThinkingPrefix, withoutThinking } from './preserved-thinking.js';

describe('checksThinkingPrefix', () => {
  it.each([
    'claude-opus-5-5',
    'claude-sonnet-5-5',
    'claude-haiku-5-5',
    'claude-fable-5-1',
    'claude-fable-5-2',
    'claude-mythos-5-1',
    'claude-opus-5-5-20261015',
    'anthropic.claude-opus-5-5-v1:0',
    'claude-opus-5-5@20261015',
    'claude-opus-6',
  ])('%s checks the prefix of the thinking it is sent back', (model) => {
    expect(checksThinkingPrefix(model)).toBe(true);
  });

  it.each([
    'claude-opus-5',
    'claude-sonnet-5',
    'claude-fable-5',
    'claude-opus-4-8',
    'claude-sonnet-4-5-20250929',
    'claude-3-7-sonnet-20250219',
    'claude-mythos-preview',
    'claude-test',
    'gpt-5.4',
  ])('%s does not', (model) => {
    expect(checksThinkingPrefix(model)).toBe(false);
  });

  it('reads no model from a value that is not a string', () => {
    expect(checksThinkingPrefix(undefined)).toBe(false);
    expect(checksThinkingPrefix(55)).toBe(false);
  });
});

describe('withoutThinking', () => {
  it('leaves out every thinking block, says so in a message of thinking alone, and keeps the rest', () => {
    const messages = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'plan', signature: 's1' },
          { type: 'tool_use', id: 't1', name: 'run', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
      { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'x' }] },
    ];
    expect(withoutThinking(messages)).toEqual([
      messages[0],
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'run', input: {} }] },
      messages[2],
      { role: 'assistant', content: [{ type: 'text', text: '(thinking omitted)' }] },
    ]);
  });

  it('leaves a history it cannot read as it is, and an assistant message without blocks alone', () => {
    const unreadable = [{ role: 'user', content: 'go' }, null];
    expect(withoutThinking(unreadable)).toBe(unreadable);
    const noBlocks = [{ role: 'assistant' }, { role: 'assistant', content: 'done' }];
    expect(withoutThinking(noBlocks)).toBe(noBlocks);
  });

  it('returns the same array when there is no thinking', () => {
    const messages = [{ role: 'user', content: 'go' }];
    expect(withoutThinking(messages)).toBe(messages);
  });
});
