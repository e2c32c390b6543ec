import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { fromOpenAIMessages } from '../core/conversation/openai-format.js';
import type { ImageBlock, Message, ToolResultBlock } from '../core/model/messages.js';
import { fromCoreMessages, toChatView } from './message-conversion.js';

const data = 'iVBORw0KGgo'.repeat(10);
const bytes = Uint8Array.from(Buffer.from(data, 'base64'));

describe('LangChain image blocks', () => {
  it.each<[string, Record<string, unknown>, ImageBlock['source']]>([
    [
      'image_url { url, detail }',
      { type: 'image_url', image_url: { url: `data:image/png;base64,${data}`, detail: 'high' } },
      { type: 'base64', media_type: 'image/png', data },
    ],
    [
      'image_url string',
      { type: 'image_url', image_url: 'https://example.test/a.png' },
      { type: 'url', url: 'https://example.test/a.png' },
    ],
    [
      'source_type base64',
      { type: 'image', source_type: 'base64', mime_type: 'image/jpeg', data },
      { type: 'base64', media_type: 'image/jpeg', data },
    ],
    [
      'source_type url',
      { type: 'image', source_type: 'url', url: 'https://example.test/b.png' },
      { type: 'url', url: 'https://example.test/b.png' },
    ],
    [
      'standard data',
      { type: 'image', mimeType: 'image/png', data },
      { type: 'base64', media_type: 'image/png', data },
    ],
    [
      'standard Uint8Array data',
      { type: 'image', mimeType: 'image/png', data: bytes },
      { type: 'base64', media_type: 'image/png', data: Buffer.from(bytes).toString('base64') },
    ],
    [
      'standard url',
      { type: 'image', url: 'https://example.test/c.png' },
      { type: 'url', url: 'https://example.test/c.png' },
    ],
  ])(
    'reads %s as an image, and writes a rewritten result back with the same block',
    (_name, block, source) => {
      const messages = [
        new HumanMessage('Look.'),
        new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'screenshot', args: {} }] }),
        new ToolMessage({
          tool_call_id: 'call_1',
          content: [{ type: 'text', text: 'the screen' }, block] as never,
        }),
      ];
      const view = toChatView(messages);
      const read = fromOpenAIMessages(view.chat).messages;
      const result = (read[2]!.content as ToolResultBlock[])[0]!;
      expect(result.content).toEqual([
        { type: 'text', text: 'the screen' },
        { type: 'image', source },
      ]);
      // Unchanged: the caller's own objects.
      expect(fromCoreMessages(read, view)).toEqual(messages);
      for (const [index, message] of fromCoreMessages(read, view).entries())
        expect(message).toBe(messages[index]);
      // Its text rewritten: a new ToolMessage whose image is the caller's block.
      const rewritten: Message[] = [
        ...read.slice(0, 2),
        {
          role: 'user',
          content: [
            {
              ...result,
              content: [
                { type: 'text', text: 'shortened' },
                { type: 'image', source },
              ],
            },
          ],
        },
      ];
      const [written] = fromCoreMessages(rewritten, view).slice(2);
      expect(written).toBeInstanceOf(ToolMessage);
      expect(written!.content).toEqual([{ type: 'text', text: 'shortened' }, block]);
      expect((written as ToolMessage).tool_call_id).toBe('call_1');
    },
  );

  it.each([
    ['standard fileId', { type: 'image', fileId: 'file-1', mimeType: 'image/png' }],
    ['source_type id', { type: 'image', source_type: 'id', id: 'file-1' }],
  ])('reads a %s image as an image held by its file id, and writes it back as it came', (_name, block) => {
    const messages = [
      new HumanMessage('Look.'),
      new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'screenshot', args: {} }] }),
      new ToolMessage({
        tool_call_id: 'call_1',
        content: [{ type: 'text', text: 'the screen' }, block] as never,
      }),
    ];
    const view = toChatView(messages);
    const read = fromOpenAIMessages(view.chat).messages;
    const result = (read[2]!.content as ToolResultBlock[])[0]!;
    expect(result.content).toEqual([
      { type: 'text', text: 'the screen' },
      { type: 'image', source: { type: 'file', file_id: 'file-1' } },
    ]);
    for (const [index, message] of fromCoreMessages(read, view).entries())
      expect(message).toBe(messages[index]);
    const rewritten: Message[] = [
      ...read.slice(0, 2),
      {
        role: 'user',
        content: [{ ...result, content: [{ type: 'text', text: 'shortened' }, ...result.content!.slice(1)] }],
      } as Message,
    ];
    const [written] = fromCoreMessages(rewritten, view).slice(2);
    expect(written!.content).toEqual([{ type: 'text', text: 'shortened' }, block]);
  });

  it('gives each of two equal messages back as the caller’s own object', () => {
    const messages = [new HumanMessage('continue'), new AIMessage('ok'), new HumanMessage('continue')];
    const view = toChatView(messages);
    const back = fromCoreMessages(fromOpenAIMessages(view.chat).messages, view);
    for (const [index, message] of back.entries()) expect(message).toBe(messages[index]);
  });

  it('splits a human message that follows tool results back off them', () => {
    const messages = [
      new HumanMessage('Read a.ts'),
      new AIMessage({
        content: '',
        tool_calls: [{ id: 'call_1', name: 'read_file', args: { path: 'a.ts' } }],
      }),
      new ToolMessage({ tool_call_id: 'call_1', content: 'export const a = 1;' }),
      new HumanMessage({
        content: [
          { type: 'text', text: 'And this:' },
          { type: 'image', mimeType: 'image/png', data },
        ],
      }),
    ];
    const view = toChatView(messages);
    const read = fromOpenAIMessages(view.chat).messages;
    expect(read).toHaveLength(3);
    const back = fromCoreMessages(read, view);
    for (const [index, message] of back.entries()) expect(message).toBe(messages[index]);
  });
});
