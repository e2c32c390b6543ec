import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/model/messages.js';
import {
  fromCanonicalMessages,
  PromptOrigins,
  systemFromMessages,
  toCanonicalMessages,
} from './prompt-conversion.js';

describe('toCanonicalMessages', () => {
  it('converts every part type to the canonical model, one message for one', () => {
    const prompt: LanguageModelV3Prompt = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at this.' },
          { type: 'file', data: new Uint8Array([1, 2, 3]), mediaType: 'image/png' },
          { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'spec.pdf' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Plan.', providerOptions: { anthropic: { signature: 'sig-1' } } },
          { type: 'text', text: 'Reading.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.ts' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', input: { command: 'false' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read_file',
            output: { type: 'json', value: { size: 3 } },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'bash',
            output: { type: 'error-text', value: 'exit 1' },
          },
        ],
      },
      { role: 'system', content: 'Be brief from now on.' },
    ];
    expect(toCanonicalMessages(prompt, new PromptOrigins())).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "Look at this.",
              "type": "text",
            },
            {
              "source": {
                "data": "AQID",
                "media_type": "image/png",
                "type": "base64",
              },
              "type": "image",
            },
            {
              "part": {
                "data": "JVBERi0=",
                "filename": "spec.pdf",
                "mediaType": "application/pdf",
                "type": "file",
              },
              "text": "[file spec.pdf]",
              "type": "ai-sdk-part",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "signature": "sig-1",
              "thinking": "Plan.",
              "type": "thinking",
            },
            {
              "text": "Reading.",
              "type": "text",
            },
            {
              "id": "c1",
              "input": {
                "path": "a.ts",
              },
              "name": "read_file",
              "type": "tool_use",
            },
            {
              "id": "c2",
              "input": {
                "command": "false",
              },
              "name": "bash",
              "type": "tool_use",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "content": "{"size":3}",
              "tool_use_id": "c1",
              "type": "tool_result",
            },
            {
              "content": "exit 1",
              "is_error": true,
              "tool_use_id": "c2",
              "type": "tool_result",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "text": "<system>
      Be brief from now on.
      </system>",
              "type": "text",
            },
          ],
          "role": "user",
        },
      ]
    `);
  });

  it('joins several leading system messages into text blocks', () => {
    expect(
      systemFromMessages([
        { role: 'system', content: 'one' },
        { role: 'system', content: 'two' },
      ]),
    ).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
  });
});

describe('fromCanonicalMessages', () => {
  it('splits rewritten user messages into tool and user messages and finds tool names', () => {
    const origins = new PromptOrigins();
    const messages: Message[] = [
      { role: 'user', content: '<context_summary>\nRead a.ts.\n</context_summary>' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c9', name: 'read_file', input: { path: 'b.ts' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c9', content: '[Previous: used read_file(b.ts); recall r4]' },
          { type: 'text', text: 'And now?' },
        ],
      },
    ];
    expect(fromCanonicalMessages(messages, origins)).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: '<context_summary>\nRead a.ts.\n</context_summary>' }],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c9', toolName: 'read_file', input: { path: 'b.ts' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c9',
            toolName: 'read_file',
            output: { type: 'text', value: '[Previous: used read_file(b.ts); recall r4]' },
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'And now?' }] },
    ]);
  });

  it('gives back the original parts of blocks the compactor kept, in a message it rewrote', () => {
    const origins = new PromptOrigins();
    const part = {
      type: 'tool-result' as const,
      toolCallId: 'c1',
      toolName: 'read_file',
      output: { type: 'json' as const, value: { size: 3 } },
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    };
    const [message] = toCanonicalMessages([{ role: 'tool', content: [part] }], origins);
    if (!message || typeof message.content === 'string') throw new Error('expected blocks');
    const rewritten: Message = {
      role: 'user',
      content: [...message.content, { type: 'text', text: 'added' }],
    };
    const [toolMessage, userMessage] = fromCanonicalMessages([rewritten], origins);
    expect(toolMessage?.content[0]).toBe(part);
    expect(userMessage).toEqual({ role: 'user', content: [{ type: 'text', text: 'added' }] });
  });
});

describe('prompt conversion for v4 (ai 7)', () => {
  it('reads v4 file data: bytes and URLs as images, text and references carried whole', () => {
    const prompt = [
      {
        role: 'user',
        content: [
          { type: 'file', data: { type: 'data', data: new Uint8Array([1, 2, 3]) }, mediaType: 'image/png' },
          {
            type: 'file',
            data: { type: 'url', url: new URL('https://example.com/a.png') },
            mediaType: 'image',
          },
          {
            type: 'file',
            data: { type: 'text', text: 'notes' },
            mediaType: 'text/plain',
            filename: 'notes.txt',
          },
        ],
      },
    ] as unknown as LanguageModelV3Prompt;
    const [message] = toCanonicalMessages(prompt, new PromptOrigins('v4'));
    const blocks = (message?.content ?? []) as { type: string; source?: unknown }[];
    expect(blocks.map((block) => block.source ?? block.type)).toEqual([
      { type: 'base64', media_type: 'image/png', data: 'AQID' },
      { type: 'url', url: 'https://example.com/a.png' },
      'ai-sdk-part',
    ]);
  });

  it('writes new image parts in v4 shape', () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AQID' } },
          {
            type: 'tool_result',
            tool_use_id: 'c1',
            content: [
              { type: 'text', text: 'screenshot' },
              { type: 'image', source: { type: 'url', url: 'https://example.com/b.png' } },
            ],
          },
        ],
      },
    ];
    expect(fromCanonicalMessages(messages, new PromptOrigins('v4'))).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "data": {
                "data": "AQID",
                "type": "data",
              },
              "mediaType": "image/png",
              "type": "file",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "output": {
                "type": "content",
                "value": [
                  {
                    "text": "screenshot",
                    "type": "text",
                  },
                  {
                    "data": {
                      "type": "url",
                      "url": "https://example.com/b.png",
                    },
                    "mediaType": "image/*",
                    "type": "file",
                  },
                ],
              },
              "toolCallId": "c1",
              "toolName": "tool",
              "type": "tool-result",
            },
          ],
          "role": "tool",
        },
      ]
    `);
  });
});
