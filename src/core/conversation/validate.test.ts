import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompactError } from '../model/errors.js';
import type { ContentBlock, Message } from '../model/messages.js';
import type { ValidationRule } from '../model/problems.js';
import { arbitraryAnyConversation, arbitraryValidConversation } from './arbitrary-conversation.test-utils.js';
import {
  allowsSystemMessages,
  assertValidMessages,
  MID_CONVERSATION_SYSTEM_BETA,
  validateMessages,
} from './validate.js';
import { found } from './validate.test-utils.js';

const text = (value: string): ContentBlock => ({ type: 'text', text: value });
const toolUse = (id: string): ContentBlock => ({
  type: 'tool_use',
  id,
  name: 'bash',
  input: { command: 'ls' },
});
const toolResult = (id: string): ContentBlock => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });
const user = (...content: ContentBlock[]): Message => ({ role: 'user', content });
const assistant = (...content: ContentBlock[]): Message => ({ role: 'assistant', content });

describe('validateMessages (anthropic)', () => {
  it.each<[string, Message[]]>([
    ['an empty conversation', []],
    ['one user string', [{ role: 'user', content: 'hi' }]],
    ['a tool round trip', [user(text('go')), assistant(toolUse('t1')), user(toolResult('t1'))]],
    [
      'parallel tool calls answered in any order, text after results',
      [
        user(text('go')),
        assistant(text('ok'), toolUse('t1'), toolUse('t2')),
        user(toolResult('t2'), toolResult('t1'), text('more')),
        assistant(text('done')),
      ],
    ],
    [
      'a turn split over consecutive same-role messages',
      [
        user(text('go')),
        assistant(text('a')),
        assistant(toolUse('t1')),
        user(toolResult('t1')),
        user(text('b')),
      ],
    ],
    [
      'thinking, images, unknown blocks and a tool_result with empty content',
      [
        user({ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }, text('see')),
        assistant(
          { type: 'thinking', thinking: 'hm', signature: 's' },
          { type: 'mystery', x: 1 },
          toolUse('t1'),
        ),
        user({ type: 'tool_result', tool_use_id: 't1', content: '' }),
        assistant({ type: 'redacted_thinking', data: 'x' }, text('ok')),
      ],
    ],
  ])('accepts %s', (_name, messages) => {
    expect(validateMessages(messages)).toEqual([]);
  });

  it.each<[string, unknown, [ValidationRule, string][]]>([
    ['messages not an array', { messages: [] }, [['messages-not-array', 'messages']]],
    ['a message that is null', [null], [['message-not-object', 'messages[0]']]],
    ['a message that is a number', [user(text('a')), 42], [['message-not-object', 'messages[1]']]],
    ['a system role', [{ role: 'system', content: 'x' }], [['invalid-role', 'messages[0].role']]],
    ['a missing role', [{ content: 'x' }], [['invalid-role', 'messages[0].role']]],
    [
      'content of the wrong type',
      [{ role: 'user', content: 7 }],
      [['invalid-content', 'messages[0].content']],
    ],
    ['missing content', [{ role: 'user' }], [['invalid-content', 'messages[0].content']]],
    [
      'a block without type',
      [{ role: 'user', content: [{ text: 'x' }] }],
      [['invalid-block', 'messages[0].content[0]']],
    ],
    [
      'a block that is a string',
      [{ role: 'user', content: ['x'] }],
      [['invalid-block', 'messages[0].content[0]']],
    ],
    [
      'a text block with a number text',
      [{ role: 'user', content: [{ type: 'text', text: 1 }] }],
      [['invalid-block', 'messages[0].content[0]']],
    ],
    [
      'first message from the assistant',
      [assistant(text('hi'))],
      [['first-message-not-user', 'messages[0]']],
    ],
    ['empty string content', [{ role: 'user', content: '' }], [['empty-content', 'messages[0].content']]],
    [
      'whitespace-only content',
      [{ role: 'user', content: ' \n' }],
      [['empty-content', 'messages[0].content']],
    ],
    ['an empty block list', [{ role: 'user', content: [] }], [['empty-block-list', 'messages[0].content']]],
    ['an empty text block', [user(text('a'), text(''))], [['empty-text-block', 'messages[0].content[1]']]],
    ['a whitespace-only text block', [user(text('\t '))], [['empty-text-block', 'messages[0].content[0]']]],
    [
      'an empty text block inside a tool_result',
      [
        user(text('go')),
        assistant(toolUse('t1')),
        user({ type: 'tool_result', tool_use_id: 't1', content: [text(' ')] }),
      ],
      [['empty-text-block', 'messages[2].content[0].content[0]']],
    ],
    [
      'a tool_use without name and with a string input',
      [user(text('go')), assistant({ type: 'tool_use', id: 't1', input: 'ls' }), user(toolResult('t1'))],
      [['invalid-tool-use', 'messages[1].content[0]']],
    ],
    [
      'a tool_result without tool_use_id',
      [user(text('go')), assistant(text('a')), user({ type: 'tool_result', content: 'x' })],
      [['invalid-tool-result', 'messages[2].content[0]']],
    ],
    [
      'a tool_result with numeric content',
      [
        user(text('go')),
        assistant(toolUse('t1')),
        user({ type: 'tool_result', tool_use_id: 't1', content: 3 }),
      ],
      [['invalid-tool-result', 'messages[2].content[0].content']],
    ],
    [
      'a tool_use in a user message',
      [user(text('a'), toolUse('t1'))],
      [['tool-use-in-user-message', 'messages[0].content[1]']],
    ],
    [
      'a tool_result in an assistant message',
      [user(text('a')), assistant(toolResult('t1'))],
      [['tool-result-in-assistant-message', 'messages[1].content[0]']],
    ],
    [
      'a tool_use id used twice',
      [
        user(text('a')),
        assistant(toolUse('t1')),
        user(toolResult('t1')),
        assistant(toolUse('t1')),
        user(toolResult('t1')),
      ],
      [['duplicate-tool-use-id', 'messages[3].content[0]']],
    ],
    [
      'an unanswered tool_use',
      [user(text('a')), assistant(toolUse('t1'), toolUse('t2')), user(toolResult('t1'))],
      [['unanswered-tool-use', 'messages[1].content[1]']],
    ],
    [
      'a tool_use answered two turns later',
      [
        user(text('a')),
        assistant(toolUse('t1')),
        user(text('b')),
        assistant(text('c')),
        user(toolResult('t1')),
      ],
      [
        ['unanswered-tool-use', 'messages[1].content[0]'],
        ['orphan-tool-result', 'messages[4].content[0]'],
      ],
    ],
    [
      'a trailing tool_use',
      [user(text('a')), assistant(text('b'), toolUse('t1'))],
      [['trailing-tool-use', 'messages[1].content[1]']],
    ],
    [
      'a tool_result with no matching tool_use',
      [user(text('a')), assistant(toolUse('t1')), user(toolResult('t1'), toolResult('t9'))],
      [['orphan-tool-result', 'messages[2].content[1]']],
    ],
    [
      'a tool_result in the first message',
      [user(toolResult('t1'))],
      [['orphan-tool-result', 'messages[0].content[0]']],
    ],
    [
      'two tool_results for one tool_use',
      [user(text('a')), assistant(toolUse('t1')), user(toolResult('t1'), toolResult('t1'))],
      [['duplicate-tool-result', 'messages[2].content[1]']],
    ],
    [
      'a tool_result after text',
      [user(text('a')), assistant(toolUse('t1')), user(text('note'), toolResult('t1'))],
      [['tool-result-not-first', 'messages[2].content[1]']],
    ],
    [
      'a tool_result after text in an earlier message of the same turn',
      [user(text('a')), assistant(toolUse('t1')), user(text('note')), user(toolResult('t1'))],
      [['tool-result-not-first', 'messages[3].content[0]']],
    ],
    [
      'a tool_result answering the first of two merged assistant messages',
      [
        user(text('a')),
        assistant(toolUse('t1')),
        assistant(toolUse('t2')),
        user(toolResult('t1'), toolResult('t2')),
      ],
      [],
    ],
  ])('reports %s', (_name, messages, expected) => {
    expect(found(messages)).toEqual(expected);
  });

  it('says where the missing tool_use should have been', () => {
    const [problem] = validateMessages([
      user(text('a')),
      assistant(toolUse('toolu_0')),
      user(toolResult('toolu_0')),
      assistant(text('b')),
      user(toolResult('toolu_1')),
    ]);
    expect(problem).toEqual({
      path: 'messages[4].content[0]',
      message: 'tool_result "toolu_1" has no tool_use in messages[3]',
      rule: 'orphan-tool-result',
    });
  });

  it('names a merged turn as a range', () => {
    const problems = validateMessages([
      user(text('a')),
      assistant(text('b')),
      assistant(text('c')),
      user(toolResult('x')),
    ]);
    expect(problems.map((problem) => problem.message)).toEqual([
      'tool_result "x" has no tool_use in messages[1..2]',
    ]);
  });

  it.each<[string, unknown, [ValidationRule, string][]]>([
    ['a string system prompt', 'be brief', []],
    ['text blocks', [text('be brief')], []],
    ['a number', 3, [['invalid-system', 'system']]],
    ['an empty text block', [text(' ')], [['invalid-system', 'system[0]']]],
    ['a non-text block', [{ type: 'image' }], [['invalid-system', 'system[0]']]],
  ])('checks the system prompt: %s', (_name, system, expected) => {
    expect(found([user(text('a'))], { system })).toEqual(expected);
  });

  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['null', null],
    ['a number', 1],
    ['a string', 'messages'],
    [
      'nested garbage',
      [
        [[]],
        { role: 'user', content: [null, 1, [], { type: 1 }] },
        { role: 'assistant', content: [{ type: 'tool_use' }] },
      ],
    ],
    [
      'a tool_result with garbage inside',
      [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 1, content: [null, 'x'] }] }],
    ],
  ])('never throws on %s', (_name, input) => {
    expect(() => validateMessages(input)).not.toThrow();
    expect(() => validateMessages(input, { format: 'openai' })).not.toThrow();
  });

  it('handles deep nesting without recursion trouble', () => {
    let deep: unknown = 'x';
    for (let depth = 0; depth < 100_000; depth++) deep = { type: 'text', text: deep };
    const problems = validateMessages([{ role: 'user', content: [deep] }]);
    expect(problems.map((problem) => problem.rule)).toEqual(['invalid-block']);
  });

  it('never throws on arbitrary JSON-like values', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 4 }), (input) => {
        const problems = validateMessages(input);
        const wrapped = validateMessages([input]);
        return Array.isArray(problems) && wrapped.every((problem) => problem.path.startsWith('messages'));
      }),
      { seed: 20261130, numRuns: 2000 },
    );
  });

  it('accepts every generated valid conversation, and its JSON round trip', () => {
    fc.assert(
      fc.property(arbitraryValidConversation(), (messages) => {
        expect(validateMessages(messages)).toEqual([]);
        expect(validateMessages(JSON.parse(JSON.stringify(messages)))).toEqual([]);
      }),
      { seed: 7, numRuns: 2000 },
    );
  });

  it('gives every problem of a generated conversation a path that exists in it', () => {
    let problems = 0;
    fc.assert(
      fc.property(arbitraryAnyConversation(), (messages) => {
        for (const problem of validateMessages(messages)) {
          problems++;
          // Every segment but the last names something present; the last may name a missing field.
          const segments = pathSegments(problem.path);
          expect(segments[0]).toBe('messages');
          let value: unknown = { messages };
          for (const segment of segments.slice(0, -1)) {
            expect(value, `${problem.path}: ${segment}`).toBeTypeOf('object');
            value = (value as Record<string, unknown>)[segment];
          }
          expect(value, problem.path).not.toBeUndefined();
        }
      }),
      { seed: 11, numRuns: 2000 },
    );
    // The generator must produce broken conversations, or the loop above proves nothing.
    expect(problems).toBeGreaterThan(100);
  });
});

describe('mid-conversation system messages (anthropic)', () => {
  const toolTurn: Message[] = [
    { role: 'user', content: 'list' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} }] },
  ];
  const system = (content: unknown) => ({ role: 'system', content }) as unknown as Message;

  it('rejects them by default, as the API does without the beta', () => {
    const problems = validateMessages([toolTurn[0]!, system('be brief')]);
    expect(problems.map((problem) => [problem.rule, problem.path])).toEqual([
      ['invalid-role', 'messages[1].role'],
    ]);
  });

  it('accepts them between turns with systemMessages, and tool pairing looks past them', () => {
    const conversation = [
      toolTurn[0]!,
      system([{ type: 'text', text: 'Agent types: Explore.' }]),
      toolTurn[1]!,
      system('Tools changed.'),
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.ts' }] },
    ] as Message[];
    expect(validateMessages(conversation, { systemMessages: true })).toEqual([]);
  });

  it('still checks their place and content', () => {
    const problems = validateMessages(
      [system('first'), toolTurn[0]!, system(''), system([]), system([{ type: 'text', text: ' ' }])],
      { systemMessages: true },
    );
    expect(problems.map((problem) => [problem.rule, problem.path])).toEqual([
      ['misplaced-system-message', 'messages[0]'],
      ['empty-content', 'messages[2].content'],
      ['empty-block-list', 'messages[3].content'],
      ['empty-text-block', 'messages[4].content[0]'],
    ]);
  });

  it('reads the beta from an anthropic-beta header value', () => {
    expect(allowsSystemMessages(`a-2025-01-01, ${MID_CONVERSATION_SYSTEM_BETA}`)).toBe(true);
    expect(allowsSystemMessages(['a-2025-01-01', MID_CONVERSATION_SYSTEM_BETA])).toBe(true);
    expect(allowsSystemMessages('mid-conversation-system-2099-01-01')).toBe(false);
    // Claude Code 2.1.328+ on its default model sends them under per-turn-control.
    expect(allowsSystemMessages('claude-code-20250219,per-turn-control-2026-07-01,effort-2025-11-24')).toBe(
      true,
    );
    expect(allowsSystemMessages('claude-code-20250219,effort-2025-11-24')).toBe(false);
    expect(allowsSystemMessages(undefined)).toBe(false);
  });
});

describe('validation relative to the input (relativeTo)', () => {
  const system = (content: string) => ({ role: 'system', content }) as unknown as Message;
  const call = (id: string): Message => ({
    role: 'assistant',
    content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `${id}.txt` } }],
  });
  const result = (id: string, content = 'text'): Message => ({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: id, content }],
  });
  const input = [
    { role: 'user', content: 'read the files' } as Message,
    system('# Environment'),
    call('t1'),
    result('t1'),
    system('keep the user updated'),
    call('t2'),
    result('t2'),
  ];

  it('does not count a shape the input holds, wherever the output moved it', () => {
    // A hard compaction: the history before t2 summarized, both system messages kept after it.
    const output = [
      { role: 'user', content: 'summary' } as Message,
      system('# Environment'),
      system('keep the user updated'),
      call('t2'),
      result('t2'),
    ];
    expect(found(output)).toEqual([
      ['invalid-role', 'messages[1].role'],
      ['invalid-role', 'messages[2].role'],
    ]);
    expect(validateMessages(output, { relativeTo: input })).toEqual([]);
  });

  it('still reports what the change itself broke: an unpaired call, a shape copied once too often', () => {
    const unpaired = [input[0]!, input[1]!, call('t1'), { role: 'user', content: 'gone' } as Message];
    expect(found(unpaired, { relativeTo: input })).toEqual([
      ['unanswered-tool-use', 'messages[2].content[0]'],
    ]);
    // The input has two system messages: the third and fourth are the change's own.
    const copied = [...input, system('# Environment'), system('# Environment')];
    expect(found(copied, { relativeTo: input })).toEqual([
      ['invalid-role', 'messages[7].role'],
      ['invalid-role', 'messages[8].role'],
    ]);
  });

  it('finds nothing in a conversation checked against itself, whatever it holds', () => {
    fc.assert(
      fc.property(arbitraryAnyConversation(), (messages) => {
        expect(validateMessages(messages, { relativeTo: messages })).toEqual([]);
      }),
    );
  });

  it('applies to every format: an OpenAI problem the client sent is not the compaction’s', () => {
    const openai = [
      { role: 'user', content: 'hi' },
      { role: 'critic', content: 'x' },
    ];
    expect(found(openai, { format: 'openai' })).toEqual([['invalid-role', 'messages[1].role']]);
    expect(validateMessages(openai, { format: 'openai', relativeTo: openai })).toEqual([]);
  });
});

describe('validateMessages options', () => {
  it('throws INVALID_OPTIONS for an unknown format, a caller bug rather than a transcript problem', () => {
    expect(() => validateMessages([], { format: 'vertex' as 'openai' })).toThrow(
      'format must be "anthropic", "openai", "responses" or "gemini", got "vertex"',
    );
  });
});

describe('assertValidMessages', () => {
  it('passes valid input', () => {
    expect(() => assertValidMessages([user(text('a'))])).not.toThrow();
  });

  it('throws INVALID_TRANSCRIPT with the first path and every problem', () => {
    let thrown: unknown;
    try {
      assertValidMessages([assistant(text('')), user(toolResult('t1'))]);
    } catch (error) {
      thrown = error;
    }
    expect(CompactError.isInstance(thrown)).toBe(true);
    const error = thrown as CompactError;
    expect(error.code).toBe('INVALID_TRANSCRIPT');
    expect(error.path).toBe('messages[0]');
    expect(error.message).toBe('messages[0]: the first message must be a user message (and 2 more problems)');
    expect(error.problems?.map((problem) => problem.rule)).toEqual([
      'first-message-not-user',
      'empty-text-block',
      'orphan-tool-result',
    ]);
  });

  it('checks the OpenAI format when asked', () => {
    expect(() =>
      assertValidMessages([{ role: 'tool', tool_call_id: 'x', content: 'y' }], { format: 'openai' }),
    ).toThrow('messages[0]: tool message "x" answers no tool_call directly before it');
  });
});

/** `messages[2].content[0].role` → ['messages', '2', 'content', '0', 'role']. */
function pathSegments(path: string): string[] {
  return path.split(/\.|\[|\]/).filter((segment) => segment !== '');
}
