import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompactError } from '../model/errors.js';
import type { ContentBlock, Message } from '../model/messages.js';
import { fromResponsesInput, toResponsesInput } from '../wire/responses/responses-format.js';
import { arbitraryAnyConversation, arbitraryValidConversation } from './arbitrary-conversation.test-utils.js';
import {
  LEADING_USER_MESSAGE_TEXT,
  MISSING_TOOL_RESULT_TEXT,
  type RepairChangeKind,
  repairMessages,
} from './repair.js';
import { arbitraryResponsesItem } from './responses-input.test-utils.js';
import type { ResponsesInputItem } from './responses-types.js';
import { validateMessages } from './validate.js';

const text = (value: string): ContentBlock => ({ type: 'text', text: value });
const toolUse = (id: string): ContentBlock => ({
  type: 'tool_use',
  id,
  name: 'bash',
  input: { command: 'ls' },
});
const toolResult = (id: string, content = 'ok'): ContentBlock => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
});
const missing = (id: string): ContentBlock => ({
  type: 'tool_result',
  tool_use_id: id,
  is_error: true,
  content: [{ type: 'text', text: MISSING_TOOL_RESULT_TEXT }],
});
const reasoning = (id: string): ContentBlock => ({
  type: 'reasoning',
  id,
  summary: [],
  encrypted_content: `ENCRYPTED_${id}`,
});
const user = (...content: ContentBlock[]): Message => ({ role: 'user', content });
const assistant = (...content: ContentBlock[]): Message => ({ role: 'assistant', content });

/** Deep-freezes a conversation so any mutation by repair throws. */
function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

describe('repairMessages', () => {
  it.each<[string, Message[], Message[], [RepairChangeKind, string][]]>([
    [
      'an unanswered tool_use gets a synthetic error result',
      [user(text('go')), assistant(toolUse('t1'), toolUse('t2')), user(toolResult('t1'))],
      [user(text('go')), assistant(toolUse('t1'), toolUse('t2')), user(toolResult('t1'), missing('t2'))],
      [['synthetic-tool-result-added', 'messages[1].content[1]']],
    ],
    [
      'a trailing tool_use gets a new user message with its result',
      [user(text('go')), assistant(text('let me look'), toolUse('t1'))],
      [user(text('go')), assistant(text('let me look'), toolUse('t1')), user(missing('t1'))],
      [['synthetic-tool-result-added', 'messages[1].content[1]']],
    ],
    [
      'an orphan tool_result is dropped',
      [user(text('go')), assistant(toolUse('t1')), user(toolResult('t1'), toolResult('t9'))],
      [user(text('go')), assistant(toolUse('t1')), user(toolResult('t1'))],
      [['orphan-tool-result-dropped', 'messages[2].content[1]']],
    ],
    [
      'a second tool_result for one id is dropped, the first kept',
      [
        user(text('go')),
        assistant(toolUse('t1')),
        user(toolResult('t1', 'first'), toolResult('t1', 'second')),
      ],
      [user(text('go')), assistant(toolUse('t1')), user(toolResult('t1', 'first'))],
      [['duplicate-tool-result-dropped', 'messages[2].content[1]']],
    ],
    [
      'tool_results move before the other blocks',
      [user(text('go')), assistant(toolUse('t1')), user(text('note'), toolResult('t1'))],
      [user(text('go')), assistant(toolUse('t1')), user(toolResult('t1'), text('note'))],
      [['tool-results-moved-first', 'messages[2]']],
    ],
    [
      'consecutive same-role messages merge when the conversation needs repair',
      [user(text('go')), { role: 'user', content: 'more' }, assistant(text('a')), assistant(toolUse('t1'))],
      [user(text('go'), text('more')), assistant(text('a'), toolUse('t1')), user(missing('t1'))],
      [
        ['messages-merged', 'messages[1]'],
        ['messages-merged', 'messages[3]'],
        ['synthetic-tool-result-added', 'messages[3].content[0]'],
      ],
    ],
    [
      'an empty text block goes',
      [user(text('go'), text('  '))],
      [user(text('go'))],
      [['empty-block-removed', 'messages[0].content[1]']],
    ],
    [
      'an empty text block inside a tool_result goes',
      [
        user(text('go')),
        assistant(toolUse('t1')),
        user({ type: 'tool_result', tool_use_id: 't1', content: [text(''), text('x')] }),
      ],
      [
        user(text('go')),
        assistant(toolUse('t1')),
        user({ type: 'tool_result', tool_use_id: 't1', content: [text('x')] }),
      ],
      [['empty-block-removed', 'messages[2].content[0].content[0]']],
    ],
    [
      'a message left empty is dropped and its neighbours re-merge',
      [user(text('go')), assistant(text('a')), { role: 'user', content: ' ' }, assistant(text('b'))],
      [user(text('go')), assistant(text('a'), text('b'))],
      [
        ['empty-message-dropped', 'messages[2]'],
        ['messages-merged', 'messages[3]'],
      ],
    ],
    [
      'an empty block list is dropped',
      [user(text('go')), { role: 'assistant', content: [] }],
      [user(text('go'))],
      [['empty-message-dropped', 'messages[1]']],
    ],
    [
      'a user message holding only orphan results is dropped, then the assistants merge',
      [user(text('go')), assistant(text('a')), user(toolResult('t9')), assistant(text('b'))],
      [user(text('go')), assistant(text('a'), text('b'))],
      [
        ['orphan-tool-result-dropped', 'messages[2].content[0]'],
        ['empty-message-dropped', 'messages[2]'],
        ['messages-merged', 'messages[3]'],
      ],
    ],
    [
      'a leading assistant message gets a user message before it',
      [assistant(text('hello'))],
      [user(text(LEADING_USER_MESSAGE_TEXT)), assistant(text('hello'))],
      [['leading-user-message-added', 'messages[0]']],
    ],
    [
      'a first message of only orphan results leaves a leading assistant, which gets a user message',
      [user(toolResult('t1')), assistant(text('a'))],
      [user(text(LEADING_USER_MESSAGE_TEXT)), assistant(text('a'))],
      [
        ['orphan-tool-result-dropped', 'messages[0].content[0]'],
        ['empty-message-dropped', 'messages[0]'],
        ['leading-user-message-added', 'messages[0]'],
      ],
    ],
    [
      'a tool_use in a user message and a tool_result in an assistant message go',
      [user(text('go'), toolUse('t1')), assistant(text('a'), toolResult('t1'))],
      [user(text('go')), assistant(text('a'))],
      [
        ['misplaced-block-removed', 'messages[0].content[1]'],
        ['misplaced-block-removed', 'messages[1].content[1]'],
      ],
    ],
    [
      'a reused tool_use id is renamed, and its result follows it',
      [
        user(text('go')),
        assistant(toolUse('t1')),
        user(toolResult('t1', 'a')),
        assistant(toolUse('t1')),
        user(toolResult('t1', 'b')),
      ],
      [
        user(text('go')),
        assistant(toolUse('t1')),
        user(toolResult('t1', 'a')),
        assistant(toolUse('t1_2')),
        user(toolResult('t1_2', 'b')),
      ],
      [
        ['duplicate-tool-use-renamed', 'messages[3].content[0]'],
        ['duplicate-tool-use-renamed', 'messages[4].content[0]'],
      ],
    ],
    [
      'parallel calls sharing an id are told apart in order',
      [
        user(text('go')),
        assistant(toolUse('t1'), toolUse('t1')),
        user(toolResult('t1', 'a'), toolResult('t1', 'b')),
      ],
      [
        user(text('go')),
        assistant(toolUse('t1'), toolUse('t1_2')),
        user(toolResult('t1', 'a'), toolResult('t1_2', 'b')),
      ],
      [
        ['duplicate-tool-use-renamed', 'messages[1].content[1]'],
        ['duplicate-tool-use-renamed', 'messages[2].content[1]'],
      ],
    ],
    [
      'a renamed id skips ids already in use',
      [user(text('go')), assistant(toolUse('t1'), toolUse('t1_2'), toolUse('t1'))],
      [
        user(text('go')),
        assistant(toolUse('t1'), toolUse('t1_2'), toolUse('t1_3')),
        user(missing('t1'), missing('t1_2'), missing('t1_3')),
      ],
      [
        ['duplicate-tool-use-renamed', 'messages[1].content[2]'],
        ['synthetic-tool-result-added', 'messages[1].content[0]'],
        ['synthetic-tool-result-added', 'messages[1].content[1]'],
        ['synthetic-tool-result-added', 'messages[1].content[2]'],
      ],
    ],
    [
      'Responses reasoning that ends the conversation is dropped with its message',
      [user(text('go')), assistant(reasoning('rs_1'))],
      [user(text('go'))],
      [
        ['misplaced-reasoning-dropped', 'messages[1].content[0]'],
        ['empty-message-dropped', 'messages[1]'],
      ],
    ],
    [
      'Responses reasoning followed by a user message (an interrupted turn) is dropped',
      [user(text('go')), assistant(reasoning('rs_1'), reasoning('rs_2')), user(text('stop'))],
      [user(text('go'), text('stop'))],
      [
        ['misplaced-reasoning-dropped', 'messages[1].content[0]'],
        ['misplaced-reasoning-dropped', 'messages[1].content[1]'],
        ['empty-message-dropped', 'messages[1]'],
        ['messages-merged', 'messages[2]'],
      ],
    ],
    [
      'Responses reasoning after the call, before its output, is dropped; before the call it stays',
      [
        user(text('go')),
        assistant(reasoning('rs_1'), toolUse('t1'), reasoning('rs_2')),
        user(toolResult('t1')),
      ],
      [user(text('go')), assistant(reasoning('rs_1'), toolUse('t1')), user(toolResult('t1'))],
      [['misplaced-reasoning-dropped', 'messages[1].content[2]']],
    ],
  ])('%s', (_name, input, expected, expectedChanges) => {
    const result = repairMessages(frozen(input));
    expect(result.messages).toEqual(expected);
    expect(result.changes.map((change) => [change.kind, change.path])).toEqual(expectedChanges);
    expect(validateMessages(result.messages)).toEqual([]);
  });

  it("with leaveTrailingToolUses, leaves the last message's own calls for the client to answer", () => {
    const call = (id: string): ContentBlock => ({ type: 'tool_use', id, name: 'ls', input: {} });
    const current: Message[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [call('a'), call('b')] },
    ];
    expect(repairMessages(current, { leaveTrailingToolUses: true })).toEqual({
      messages: current,
      changes: [],
    });
    expect(repairMessages(current).changes).toHaveLength(2);
    // A call the model moved on from is past: merged into the last message, it is still answered.
    const past: Message[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [call('a')] },
      { role: 'assistant', content: [call('b')] },
    ];
    const repaired = repairMessages(past, { leaveTrailingToolUses: true });
    expect(repaired.messages.at(-1)).toMatchObject({ role: 'user', content: [{ tool_use_id: 'a' }] });
  });

  it('describes each change in a sentence', () => {
    const { changes } = repairMessages([user(text('go')), assistant(toolUse('toolu_1'))]);
    expect(changes).toEqual([
      {
        kind: 'synthetic-tool-result-added',
        path: 'messages[1].content[0]',
        message: 'added an is_error tool_result for tool_use "toolu_1", whose result is missing',
      },
    ]);
  });

  it('returns valid input as the same array with no changes, even with same-role runs', () => {
    const input = [user(text('go')), user(text('more')), assistant(text('ok'))];
    const result = repairMessages(input);
    expect(result.messages).toBe(input);
    expect(result.changes).toEqual([]);
  });

  it('keeps untouched messages as the same objects when others change', () => {
    const first = user(text('go'));
    const second = assistant(text('a'), toolUse('t1'));
    const result = repairMessages([first, second]);
    expect(result.messages[0]).toBe(first);
    expect(result.messages[1]).toBe(second);
  });

  it('keeps extra fields of a message it rewrites', () => {
    const input = [{ ...user(text('go'), text('')), id: 'msg_1' } as Message];
    expect(repairMessages(input).messages).toEqual([{ role: 'user', content: [text('go')], id: 'msg_1' }]);
  });

  it.each<[string, unknown]>([
    ['not an array', { messages: [] }],
    ['a bad role', [{ role: 'system', content: 'x' }]],
    [
      'a tool_use without name',
      [user(text('a')), { role: 'assistant', content: [{ type: 'tool_use', id: 'x', input: {} }] }],
    ],
  ])('refuses input that is not well-typed: %s', (_name, input) => {
    let thrown: unknown;
    try {
      repairMessages(input as Message[]);
    } catch (error) {
      thrown = error;
    }
    expect(CompactError.isInstance(thrown)).toBe(true);
    expect((thrown as CompactError).code).toBe('INVALID_TRANSCRIPT');
    expect((thrown as CompactError).message).toMatch(/^messages.*: cannot repair: /);
  });
});

describe('repairMessages properties', () => {
  const runs = { numRuns: 3000 };

  it('always yields a conversation validateMessages accepts, without mutating the input', () => {
    fc.assert(
      fc.property(arbitraryAnyConversation(), (messages) => {
        const before = JSON.stringify(messages);
        const { messages: repaired } = repairMessages(messages);
        expect(validateMessages(repaired)).toEqual([]);
        expect(JSON.stringify(messages)).toBe(before);
      }),
      { seed: 42, ...runs },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(arbitraryAnyConversation(), (messages) => {
        const once = repairMessages(messages).messages;
        const twice = repairMessages(once);
        expect(twice.messages).toBe(once);
        expect(twice.changes).toEqual([]);
      }),
      { seed: 43, ...runs },
    );
  });

  it('leaves valid input unchanged: same array, same message objects', () => {
    fc.assert(
      fc.property(arbitraryValidConversation(), (messages) => {
        const result = repairMessages(messages);
        expect(result.messages).toBe(messages);
        result.messages.forEach((message, index) => {
          expect(message).toBe(messages[index]);
        });
        expect(result.changes).toEqual([]);
      }),
      { seed: 44, ...runs },
    );
  });

  it('reports a change exactly when it changes something', () => {
    fc.assert(
      fc.property(arbitraryAnyConversation(), (messages) => {
        const result = repairMessages(messages);
        const valid = validateMessages(messages).length === 0;
        expect(result.changes.length === 0).toBe(valid);
        expect(result.messages === messages).toBe(valid);
      }),
      { seed: 45, ...runs },
    );
  });

  it('keeps every tool_use and never invents results for tool_uses that had one', () => {
    fc.assert(
      fc.property(arbitraryAnyConversation(), (messages) => {
        const countToolUses = (list: readonly Message[]): number =>
          list
            .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
            .filter((block) => block.type === 'tool_use').length;
        const inAssistant = messages
          .filter((message) => message.role === 'assistant')
          .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
          .filter((block) => block.type === 'tool_use').length;
        expect(countToolUses(repairMessages(messages).messages)).toBe(inAssistant);
      }),
      { seed: 46, numRuns: 1000 },
    );
  });

  it('survives a JSON round trip: the repaired output parses back valid and unchanged by repair', () => {
    fc.assert(
      fc.property(arbitraryAnyConversation(), (messages) => {
        const parsed = JSON.parse(JSON.stringify(repairMessages(messages).messages)) as Message[];
        expect(repairMessages(parsed).messages).toBe(parsed);
      }),
      { seed: 47, numRuns: 1000 },
    );
  });

  it('generates invalid conversations often enough to matter', () => {
    const samples = fc.sample(arbitraryAnyConversation(), { seed: 48, numRuns: 500 });
    const invalid = samples.filter((messages) => validateMessages(messages).length > 0).length;
    expect(invalid).toBeGreaterThan(200);
    expect(invalid).toBeLessThan(500);
  });
});

/**
 * Responses items whose custom calls and outputs have call ids of their own: repair works on the
 * canonical model, which has one kind of call, so it cannot fix a function_call answered by a
 * custom_tool_call_output.
 */
const responsesItems = fc.array(
  arbitraryResponsesItem.map((item) =>
    item.type === 'custom_tool_call' || item.type === 'custom_tool_call_output'
      ? { ...item, call_id: `custom_${item.call_id}` }
      : item,
  ),
  { maxLength: 12 },
);

describe('repairMessages on Responses input', () => {
  it('always yields input the Responses rules accept', () => {
    fc.assert(
      fc.property(responsesItems, (items) => {
        const { messages, system } = fromResponsesInput(items as ResponsesInputItem[]);
        const { messages: repaired } = repairMessages(messages);
        const output = toResponsesInput(repaired, system);
        expect(validateMessages(output, { format: 'responses' })).toEqual([]);
        expect(repairMessages(repaired).changes).toEqual([]);
      }),
      { seed: 49, numRuns: 2000 },
    );
  });

  it('generates misplaced reasoning often enough to matter', () => {
    const samples = fc.sample(fc.array(arbitraryResponsesItem, { maxLength: 12 }), {
      seed: 49,
      numRuns: 500,
    });
    const misplaced = samples.filter((items) =>
      validateMessages(items, { format: 'responses' }).some(
        (problem) => problem.rule === 'misplaced-reasoning',
      ),
    );
    expect(misplaced.length).toBeGreaterThan(50);
  });
});
