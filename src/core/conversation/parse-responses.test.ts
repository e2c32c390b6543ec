import { describe, expect, it } from 'vitest';
import { CompactError } from '../model/errors.js';
import { detectFormat, parseConversation, serializeConversation } from './parse-conversation.js';
import { codexLikeInput, compactedInput } from './responses-input.test-utils.js';

describe('Responses conversation files', () => {
  it.each([
    [
      'an { instructions, input } object',
      JSON.stringify({ instructions: 'Be brief.', input: codexLikeInput() }),
      'object',
    ],
    ['a bare array of items', JSON.stringify(codexLikeInput()), 'array'],
    [
      'JSONL items',
      codexLikeInput()
        .map((item) => JSON.stringify(item))
        .join('\n'),
      'jsonl',
    ],
  ])('detects and reads %s, and writes it back unchanged', (_name, text, layout) => {
    const parsed = parseConversation(text);
    expect(parsed.format).toBe('responses');
    expect(parsed.layout).toBe(layout);
    const written = serializeConversation(parsed.conversation, 'responses', { jsonl: layout === 'jsonl' });
    const reread = parseConversation(written);
    expect(reread.responsesInput).toEqual(codexLikeInput());
    expect(reread.conversation).toEqual(parsed.conversation);
  });

  it('keeps instructions in the instructions field', () => {
    const parsed = parseConversation(JSON.stringify({ instructions: 'Be brief.', input: 'Hi' }));
    expect(JSON.parse(serializeConversation(parsed.conversation, 'responses'))).toEqual({
      instructions: 'Be brief.',
      input: [{ role: 'user', content: 'Hi' }],
    });
  });

  it('detects Responses marks before OpenAI ones (developer messages are both)', () => {
    expect(
      detectFormat([
        { role: 'developer', content: 'x' },
        { type: 'function_call_output', call_id: 'c', output: '' },
      ]),
    ).toBe('responses');
    expect(detectFormat(compactedInput())).toBe('responses');
    // An Anthropic API response is `type: "message"` too; its parts say Anthropic.
    expect(
      detectFormat([{ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'x' }] }]),
    ).toBe('anthropic');
  });

  it('--format responses forces a plain array to be read as Responses items', () => {
    const parsed = parseConversation(
      '[{"role":"developer","content":"Be brief."},{"role":"user","content":"Hi"}]',
      {
        format: 'responses',
      },
    );
    expect(parsed.conversation).toEqual({
      system: [{ type: 'text', text: 'Be brief.', provider_data: { responses: { stringContent: true } } }],
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  it.each([
    [
      'a call without a name',
      '{"input":[{"type":"function_call","call_id":"c1","arguments":"{}"}]}',
      'chat.json: input[0]',
    ],
    [
      'a part without text',
      '{"input":[{"role":"user","content":[{"type":"input_text"}]}]}',
      'chat.json: input[0].content[0]',
    ],
    [
      'a bad JSONL line item',
      '{"type":"function_call","call_id":"c1","name":"ls","arguments":"{}"}\n{"type":"function_call_output","call_id":"c1","output":7}',
      'chat.json:2: messages[1].output',
    ],
  ])('refuses %s with UNREADABLE_INPUT and a path', (_name, text, path) => {
    try {
      parseConversation(text, { source: 'chat.json' });
      expect.unreachable();
    } catch (error) {
      expect(CompactError.isInstance(error) && error.code).toBe('UNREADABLE_INPUT');
      expect((error as CompactError).path).toBe(path);
    }
  });
});
