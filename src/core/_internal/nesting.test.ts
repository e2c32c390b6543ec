import { describe, expect, it } from 'vitest';
import { createCompactor } from '../compactor.js';
import { CompactError } from '../model/errors.js';
import type { Message } from '../model/messages.js';
import { tooDeepPath } from './nesting.js';

function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < levels; level++) value = { a: value };
  return value;
}

describe('tooDeepPath', () => {
  it('names where a value deeper than the limit starts, and nothing within it', () => {
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'x', extra: nested(50) }] }];
    expect(tooDeepPath(messages, 'messages', 20)).toBe('messages[0].content[0].extra.a.a…');
    expect(tooDeepPath(messages, 'messages', 100)).toBeUndefined();
  });
});

describe('maybeCompact on a tool input nested too deep to serialise', () => {
  it('throws UNREADABLE_INPUT at its path, not a RangeError', async () => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'run', input: { deep: nested(20_000) } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
    ];
    const error = await createCompactor()
      .maybeCompact(messages)
      .catch((thrown: unknown) => thrown);
    expect(CompactError.isInstance(error) && [error.code, error.path]).toEqual([
      'UNREADABLE_INPUT',
      'messages[1].content[0].input.deep.a…',
    ]);
  });
});
