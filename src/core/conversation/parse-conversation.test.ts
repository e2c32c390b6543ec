import { describe, expect, it } from 'vitest';
import { CompactError } from '../model/errors.js';
import {
  detectFormat,
  lineAndColumn,
  MAX_NESTING_DEPTH,
  parseConversation,
  serializeConversation,
} from './parse-conversation.js';

function errorOf(run: () => unknown): CompactError {
  try {
    run();
  } catch (error) {
    if (error instanceof CompactError) return error;
    throw new Error(`expected a CompactError, got ${String(error)}`);
  }
  throw new Error('expected an error, got none');
}

describe('parseConversation', () => {
  it('reads an Anthropic object with system and drops unknown message fields', () => {
    const text = JSON.stringify({
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Hi', timestamp: 123 },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {}, _tool_name: 'x' }],
          model: 'claude',
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a' }] },
      ],
    });
    expect(parseConversation(text)).toMatchInlineSnapshot(`
      {
        "conversation": {
          "messages": [
            {
              "content": "Hi",
              "role": "user",
            },
            {
              "content": [
                {
                  "id": "t1",
                  "input": {},
                  "name": "ls",
                  "type": "tool_use",
                },
              ],
              "role": "assistant",
            },
            {
              "content": [
                {
                  "content": "a",
                  "tool_use_id": "t1",
                  "type": "tool_result",
                },
              ],
              "role": "user",
            },
          ],
          "system": "Be brief.",
        },
        "format": "anthropic",
        "layout": "object",
      }
    `);
  });

  it('reads a bare array of OpenAI messages', () => {
    const text = JSON.stringify([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
    ]);
    const parsed = parseConversation(text);
    expect(parsed.format).toBe('openai');
    expect(parsed.layout).toBe('array');
    expect(parsed.conversation).toEqual({
      system: 'S',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'ls', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'a.txt' }] },
      ],
    });
  });

  it('reads JSONL, one message per line, skipping blank lines', () => {
    const text = '{"role":"user","content":"Hi"}\n\n{"role":"assistant","content":"Hello"}\n';
    const parsed = parseConversation(text);
    expect(parsed.layout).toBe('jsonl');
    expect(parsed.conversation.messages).toHaveLength(2);
  });

  it('reads a file holding a single message as one-line JSONL', () => {
    const parsed = parseConversation('{"role":"user","content":"Hi"}');
    expect(parsed).toEqual({
      conversation: { messages: [{ role: 'user', content: 'Hi' }] },
      format: 'anthropic',
      layout: 'jsonl',
    });
  });

  it('forces a format with the format option', () => {
    const text = JSON.stringify([{ role: 'user', content: 'Hi' }]);
    expect(parseConversation(text, { format: 'openai' }).format).toBe('openai');
    const tool = JSON.stringify([{ role: 'tool', tool_call_id: 'c', content: 'x' }]);
    expect(errorOf(() => parseConversation(tool, { format: 'anthropic' })).message).toBe(
      'messages[0].role: expected "user" or "assistant", got "tool"',
    );
  });

  it.each([
    [
      'broken JSON with a position',
      '{\n  "messages": [\n    {"role": "user",, "content": "x"}\n  ]\n}',
      '3:21: broken JSON',
    ],
    ['JSON cut short', '{"messages": [', '1:15: broken JSON: Unexpected end of JSON input'],
    [
      'a document laid out one message a line, broken on the third',
      '{"messages": [\n {"role":"user","content":"hi"},\n {"role":"assistant", content: 1}]}',
      '3:23: broken JSON: Expected double-quoted property name',
    ],
    [
      'a broken JSONL line',
      '{"role":"user","content":"a"}\n{"role":"assistant","content":\n',
      '2:31: broken JSON',
    ],
    ['empty input', '   \n', 'the input is empty'],
    ['a number', '42', 'expected a JSON object with "messages"'],
    ['no messages', '{"system":"x"}', 'expected a "messages" array'],
    ['messages not an array', '{"messages":{}}', 'messages: expected an array, got object'],
    [
      'content of the wrong type',
      '{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"},{"role":"assistant","content":7}]}',
      'messages[3].content: expected string or array, got number',
    ],
    ['a message that is not an object', '[null]', 'messages[0]: expected object, got null'],
    [
      'a block without a type',
      '[{"role":"user","content":[{"text":"a"}]}]',
      'messages[0].content[0].type: expected string, got undefined',
    ],
    [
      'a tool_use without an id',
      '[{"role":"assistant","content":[{"type":"tool_use","name":"x","input":{}}]}]',
      'messages[0].content[0].id: expected string, got undefined',
    ],
    [
      'a tool call without a function',
      '[{"role":"assistant","tool_calls":[{"id":"c"}]}]',
      'messages[0].tool_calls[0].function: expected object, got undefined',
    ],
    [
      'an unknown role',
      '[{"role":"robot","content":"x"}]',
      'messages[0].role: expected "user" or "assistant", got "robot"',
    ],
    [
      'a role of 100,000 characters, quoted by its head only',
      JSON.stringify([{ role: 'r'.repeat(100_000), content: 'x' }]),
      `messages[0].role: expected "user" or "assistant", got "${'r'.repeat(40)}…"`,
    ],
  ])('refuses %s with UNREADABLE_INPUT and where', (_name, text, expected) => {
    const error = errorOf(() => parseConversation(text));
    expect(error.code).toBe('UNREADABLE_INPUT');
    expect(error.message).toContain(expected);
  });

  it('names the source in front of the location', () => {
    const error = errorOf(() => parseConversation('{"messages": [1,,]}', { source: 'chat.json' }));
    expect(error.message).toMatch(/^chat\.json:1:17: broken JSON/);
    const typeError = errorOf(() =>
      parseConversation('[{"role":"user","content":1}]', { source: 'chat.json' }),
    );
    expect(typeError.message).toBe('chat.json: messages[0].content: expected string or array, got number');
  });

  it('names the JSONL line of a message with a wrong type', () => {
    const text = '{"role":"user","content":"a"}\n\n{"role":"assistant","content":5}\n';
    expect(errorOf(() => parseConversation(text, { source: 'c.jsonl' })).message).toBe(
      'c.jsonl:3: messages[1].content: expected string or array, got number',
    );
    expect(errorOf(() => parseConversation(text)).message).toBe(
      'line 3: messages[1].content: expected string or array, got number',
    );
  });

  it('does not pollute prototypes through __proto__ or constructor keys', () => {
    const text =
      '{"messages":[{"role":"user","__proto__":{"polluted":true},"content":[{"type":"custom","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}]},' +
      '{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{"__proto__":{"polluted":true}}}]}]}';
    const { conversation } = parseConversation(text);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(conversation.messages[0])).toBe(Object.prototype);
    const block = (conversation.messages[0]!.content as unknown[])[0] as Record<string, unknown>;
    expect(Object.getPrototypeOf(block)).toBe(Object.prototype);
    expect(block.polluted).toBeUndefined();
  });

  it('refuses a "constructor" role instead of finding Object.prototype.constructor', () => {
    const error = errorOf(() =>
      parseConversation('[{"role":"constructor","content":"x"}]', { format: 'openai' }),
    );
    expect(error.message).toContain('messages[0].role');
  });

  it('refuses 10,000 levels of nesting with a clear error, no stack overflow', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const text = `[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{"a":${deep}}}]}]`;
    const error = errorOf(() => parseConversation(text));
    expect(error.code).toBe('UNREADABLE_INPUT');
    expect(error.message).toBe(`messages[0]: nested deeper than ${MAX_NESTING_DEPTH} levels`);
  });

  it('reports input too deep even for JSON.parse as unreadable', () => {
    const deep = `${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}`;
    const error = errorOf(() => parseConversation(deep));
    expect(error.code).toBe('UNREADABLE_INPUT');
  });

  it('replaces lone surrogates with U+FFFD', () => {
    const { conversation } = parseConversation(
      '[{"role":"user","content":"a\\ud800b\\udc00c\\ud83d\\ude00"}]',
    );
    expect(conversation.messages[0]!.content).toBe('a\uFFFDb\uFFFDc\u{1F600}');
  });
});

describe('detectFormat', () => {
  it.each([
    [[{ role: 'user', content: 'x' }], 'anthropic'],
    [[{ role: 'developer', content: 'x' }], 'openai'],
    [[{ role: 'assistant', content: null, tool_calls: [] }], 'openai'],
    [[{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'u' } }] }], 'openai'],
    [[{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x' }] }], 'anthropic'],
  ])('%j is %s', (messages, expected) => {
    expect(detectFormat(messages)).toBe(expected);
  });
});

describe('serializeConversation', () => {
  const conversation = {
    system: 'S',
    messages: [
      { role: 'user' as const, content: 'Hi' },
      { role: 'assistant' as const, content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
      { role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a' }] },
    ],
  };

  it.each([
    ['anthropic', false],
    ['anthropic', true],
    ['openai', false],
    ['openai', true],
  ] as const)('writes %s (jsonl: %s) that parses back to the same conversation', (format, jsonl) => {
    const text = serializeConversation(conversation, format, { jsonl });
    const parsed = parseConversation(text);
    expect(parsed.format).toBe(format);
    expect(parsed.layout).toBe(jsonl ? 'jsonl' : 'object');
    expect(parsed.conversation).toEqual(conversation);
  });

  it('writes OpenAI JSONL with the system role it was given', () => {
    expect(
      serializeConversation({ system: 'S', messages: [] }, 'openai', {
        jsonl: true,
        systemRole: 'developer',
      }),
    ).toMatchInlineSnapshot(`
        "{"role":"developer","content":"S"}
        "
      `);
  });
});

describe('lineAndColumn', () => {
  it.each([
    ['abc', 0, { line: 1, column: 1 }],
    ['a\nbc', 3, { line: 2, column: 2 }],
    ['a\n', 2, { line: 2, column: 1 }],
  ])('%j at %i', (text, position, expected) => {
    expect(lineAndColumn(text, position)).toEqual(expected);
  });
});
