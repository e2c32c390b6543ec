import { describe, expect, it } from 'vitest';
import type { Message } from '../conversation/types.js';
import { readableHistory, UNREADABLE_CONTENT_TEXT } from './readable-history.js';

describe('readableHistory', () => {
  it('keeps readable blocks, turns a provider compaction into its summary text and drops what is signed or encrypted', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'compaction', content: 'Earlier work.', encrypted_content: 'ENC' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'plan', signature: 'SIG' },
          { type: 'redacted_thinking', data: 'DATA' },
          { type: 'reasoning', encrypted_content: 'ENC2' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 't1', name: 'Read', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
      { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'DATA2' }] },
    ];
    const readable = readableHistory(messages);
    expect(readable[2]).toBe(messages[2]);
    expect(readable).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "[earlier summary by the provider]
      Earlier work.",
              "type": "text",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "text": "Reading.",
              "type": "text",
            },
            {
              "id": "t1",
              "input": {},
              "name": "Read",
              "type": "tool_use",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "content": "ok",
              "tool_use_id": "t1",
              "type": "tool_result",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "text": "[encrypted or signed content omitted]",
              "type": "text",
            },
          ],
          "role": "assistant",
        },
      ]
    `);
    expect(readable[3]!.content).toEqual([{ type: 'text', text: UNREADABLE_CONTENT_TEXT }]);
  });
});
