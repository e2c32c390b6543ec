import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { blockStandIn, readableHistory, UNREADABLE_CONTENT_TEXT } from './readable-history.js';

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

  it.each([
    [
      'an OpenAI file by id',
      { type: 'input_file', file_id: 'file-1', filename: 'report.pdf' },
      '[file: report.pdf]',
    ],
    [
      'an inline file without a name',
      { type: 'input_file', file_data: 'data:application/pdf;base64,AA' },
      '[file]',
    ],
    [
      'a file by URL',
      { type: 'input_file', file_url: 'https://example.com/a.pdf' },
      '[file: https://example.com/a.pdf]',
    ],
    [
      'an image by file id',
      { type: 'image', source: { type: 'file', file_id: 'file-img' } },
      '[image: file-img]',
    ],
    [
      'an Anthropic document',
      { type: 'document', title: 'Spec', source: { type: 'text', data: 'x' } },
      '[document: Spec]',
    ],
    ['a block naming nothing', { type: 'web_search_call', status: 'completed' }, '[web_search_call]'],
  ])('stands in for %s with a short text', (_name, block, text) => {
    expect(blockStandIn(block)).toBe(text);
  });

  it('replaces what a summarizer API cannot take, in messages and tool results, and keeps the rest', () => {
    const image = {
      type: 'image' as const,
      source: { type: 'url' as const, url: 'https://example.com/a.png' },
    };
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'See:' },
          { type: 'input_file', file_id: 'f1', filename: 'a.pdf' },
          image,
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'fetch', input: {} }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            content: [{ type: 'input_file', filename: 'b.log' }, image],
          },
        ],
      },
    ];
    const readable = readableHistory(messages);
    expect(readable[0]!.content).toEqual([
      { type: 'text', text: 'See:' },
      { type: 'text', text: '[file: a.pdf]' },
      image,
    ]);
    expect(readable[1]).toBe(messages[1]);
    expect(readable[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: '[file: b.log]' }, image] },
    ]);
  });
});
