import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { codexLikeInput, compactedInput } from '../../conversation/responses-input.test-utils.js';
import { assertValidMessages, validateMessages } from '../../conversation/validate.js';

const call = (callId: string): ResponseInputItem => ({
  type: 'function_call',
  call_id: callId,
  name: 'shell',
  arguments: '{}',
});
const output = (callId: string): ResponseInputItem => ({
  type: 'function_call_output',
  call_id: callId,
  output: 'ok',
});
const reasoning = (id: string): ResponseInputItem => ({ type: 'reasoning', id, summary: [] });
const user = (text: string): ResponseInputItem => ({ role: 'user', content: text });

describe('validateMessages with format "responses"', () => {
  it.each([
    ['a Codex-like session', codexLikeInput()],
    ['a compacted session with item references', compactedInput()],
    ['a plain prompt string', 'Hi'],
    [
      'reasoning before an assistant message',
      [user('Hi'), reasoning('rs_1'), { role: 'assistant', content: 'Hello' }],
    ],
    ['reasoning before an item_reference without a type', [user('Hi'), reasoning('rs_1'), { id: 'msg_1' }]],
  ] as Array<[string, unknown]>)('accepts %s', (_name, input) => {
    expect(validateMessages(input, { format: 'responses' })).toEqual([]);
  });

  it.each([
    ['not an array', 42, 'input', 'messages-not-array'],
    ['an item that is not an object', [user('Hi'), 'oops'], 'input[1]', 'message-not-object'],
    ['a bad role', [{ role: 'tool', content: 'x' }], 'input[0].role', 'invalid-role'],
    ['content of the wrong type', [{ role: 'user', content: 3 }], 'input[0].content', 'invalid-content'],
    [
      'an input part in an assistant message',
      [user('Hi'), { role: 'assistant', content: [{ type: 'input_text', text: 'x' }] }],
      'input[1].content[0].type',
      'invalid-block',
    ],
    [
      'a call without arguments',
      [{ type: 'function_call', call_id: 'c1', name: 'ls' }, output('c1')],
      'input[0]',
      'invalid-tool-call',
    ],
    ['an output before its call', [user('Hi'), output('c1'), call('c1')], 'input[1]', 'orphan-tool-message'],
    ['an output answering nothing', [user('Hi'), output('c9')], 'input[1]', 'orphan-tool-message'],
    [
      'an output answered twice',
      [user('Hi'), call('c1'), output('c1'), output('c1')],
      'input[3]',
      'duplicate-tool-message',
    ],
    [
      'a repeated call_id',
      [user('Hi'), call('c1'), call('c1'), output('c1')],
      'input[2].call_id',
      'duplicate-tool-call-id',
    ],
    ['an unanswered call', [user('Hi'), call('c1')], 'input[1]', 'unanswered-tool-call'],
    [
      'a custom output answering a function_call',
      [user('Hi'), call('c1'), { type: 'custom_tool_call_output', call_id: 'c1', output: 'x' }],
      'input[2]',
      'orphan-tool-message',
    ],
    ['reasoning at the end', [user('Hi'), reasoning('rs_1')], 'input[1]', 'misplaced-reasoning'],
    [
      'reasoning before a user message',
      [user('Hi'), reasoning('rs_1'), user('again')],
      'input[1]',
      'misplaced-reasoning',
    ],
    [
      'reasoning without a summary',
      [user('Hi'), { type: 'reasoning', id: 'rs_1' }, call('c1'), output('c1')],
      'input[1]',
      'invalid-item',
    ],
    ['a compaction without encrypted_content', [{ type: 'compaction' }], 'input[0]', 'invalid-item'],
  ] as Array<[string, unknown, string, string]>)('reports %s', (_name, input, path, rule) => {
    const problems = validateMessages(input, { format: 'responses' });
    expect(problems).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it('says what and where', () => {
    expect(
      validateMessages([user('Hi'), reasoning('rs_7'), user('again')], { format: 'responses' }),
    ).toMatchInlineSnapshot(`
        [
          {
            "message": "reasoning item "rs_7" is followed by input[2]; it must stay directly before the message or call it produced",
            "path": "input[1]",
            "rule": "misplaced-reasoning",
          },
        ]
      `);
    expect(() => assertValidMessages([user('Hi'), call('c1')], { format: 'responses' })).toThrow(
      expect.objectContaining({ code: 'INVALID_TRANSCRIPT', path: 'input[1]' }),
    );
  });
});
