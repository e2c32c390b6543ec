import fc from 'fast-check';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import {
  arbitraryResponsesItem,
  codexLikeInput,
  compactedInput,
  encryptedSample,
} from '../../conversation/responses-input.test-utils.js';
import type { ResponsesInputItem } from '../../conversation/responses-types.js';
import type { Message } from '../../model/messages.js';
import type { ValidationProblem } from '../../model/problems.js';
import { fromResponsesInput, toResponsesInput } from './responses-format.js';
import { validateResponsesInput } from './validate-responses.js';

/** The round trip as the API sees it: the JSON text of the input. */
function roundTrip(input: readonly ResponseInputItem[], instructions?: string): string {
  const { messages, system } = fromResponsesInput(input as ResponsesInputItem[], { instructions });
  return JSON.stringify(toResponsesInput(messages, system));
}

describe('fromResponsesInput', () => {
  it('reads a plain prompt and instructions', () => {
    expect(fromResponsesInput('List the files', { instructions: 'Be brief.' })).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": "List the files",
            "role": "user",
          },
        ],
        "system": [
          {
            "provider_data": {
              "responses": {
                "instructions": true,
              },
            },
            "text": "Be brief.",
            "type": "text",
          },
        ],
      }
    `);
  });

  it('groups items by side: reasoning stays in the assistant turn of the call it precedes', () => {
    const { messages, system } = fromResponsesInput(codexLikeInput() as ResponsesInputItem[]);
    expect(system).toMatchInlineSnapshot(`
      [
        {
          "text": "<permissions instructions>sandbox: workspace-write</permissions instructions>",
          "type": "text",
        },
      ]
    `);
    expect(messages.slice(0, 4)).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "<environment_context>cwd: /repo</environment_context>",
              "type": "text",
            },
            {
              "text": "Fix the failing test in src/sum.ts",
              "type": "text",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "content": null,
              "encrypted_content": "gAAAAABo-ENCRYPTED-REASONING==1",
              "id": "rs_001",
              "summary": [
                {
                  "text": "Look at the test output first.",
                  "type": "summary_text",
                },
              ],
              "type": "reasoning",
            },
            {
              "id": "call_001",
              "input": {
                "command": [
                  "bash",
                  "-lc",
                  "npm test",
                ],
                "workdir": "/repo",
              },
              "name": "shell",
              "provider_data": {
                "responses": {
                  "item": {
                    "arguments": null,
                    "call_id": "call_001",
                    "name": "shell",
                    "type": "function_call",
                  },
                },
              },
              "type": "tool_use",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "content": "FAIL src/sum.test.ts
        expected 3, got 4
      ",
              "tool_use_id": "call_001",
              "type": "tool_result",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "encrypted_content": "gAAAAABo-ENCRYPTED-REASONING==2",
              "id": "rs_002",
              "summary": [],
              "type": "reasoning",
            },
            {
              "id": "call_002",
              "input": {
                "input": "*** Begin Patch
      *** Update File: src/sum.ts
      -  return a + b + 1;
      +  return a + b;
      *** End Patch",
              },
              "name": "apply_patch",
              "provider_data": {
                "responses": {
                  "item": {
                    "call_id": "call_002",
                    "id": "ctc_002",
                    "input": null,
                    "name": "apply_patch",
                    "type": "custom_tool_call",
                  },
                },
              },
              "type": "tool_use",
            },
          ],
          "role": "assistant",
        },
      ]
    `);
  });

  it('keeps images as image blocks and files as their own blocks', () => {
    const { messages } = fromResponsesInput(codexLikeInput() as ResponsesInputItem[]);
    expect(messages.at(-1)).toMatchInlineSnapshot(`
      {
        "content": [
          {
            "provider_data": {
              "responses": {
                "stringContent": true,
              },
            },
            "text": "Thanks. Now look at this screenshot.",
            "type": "text",
          },
          {
            "provider_data": {
              "responses": {
                "item": {
                  "content": null,
                  "role": "user",
                },
              },
            },
            "text": "The page renders blank:",
            "type": "text",
          },
          {
            "provider_data": {
              "responses": {
                "continues": true,
                "part": {
                  "detail": "high",
                  "image_url": null,
                  "type": "input_image",
                },
              },
            },
            "source": {
              "data": "iVBORw0KGgo=",
              "media_type": "image/png",
              "type": "base64",
            },
            "type": "image",
          },
          {
            "file_id": "file-abc",
            "filename": "log.txt",
            "provider_data": {
              "responses": {
                "continues": true,
              },
            },
            "type": "input_file",
          },
        ],
        "role": "user",
      }
    `);
  });
});

describe('toResponsesInput', () => {
  it('writes canonical messages in the default Responses shapes', () => {
    const messages: Message[] = [
      { role: 'user', content: 'List the files' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Listing.' },
          { type: 'tool_use', id: 'call_1', name: 'ls', input: { path: '.' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'a.ts\nb.ts' },
          { type: 'text', text: 'Now read a.ts' },
        ],
      },
    ];
    expect(toResponsesInput(messages, 'Be brief.')).toMatchInlineSnapshot(`
      [
        {
          "content": "Be brief.",
          "role": "developer",
        },
        {
          "content": "List the files",
          "role": "user",
        },
        {
          "content": [
            {
              "text": "Listing.",
              "type": "output_text",
            },
          ],
          "role": "assistant",
          "type": "message",
        },
        {
          "arguments": "{"path":"."}",
          "call_id": "call_1",
          "name": "ls",
          "type": "function_call",
        },
        {
          "call_id": "call_1",
          "output": "a.ts
      b.ts",
          "type": "function_call_output",
        },
        {
          "content": [
            {
              "text": "Now read a.ts",
              "type": "input_text",
            },
          ],
          "role": "user",
          "type": "message",
        },
      ]
    `);
  });

  it('answers a custom tool call with a custom output even when the result was rewritten', () => {
    const { messages } = fromResponsesInput(codexLikeInput() as ResponsesInputItem[]);
    const rewritten = messages.map((message) =>
      typeof message.content === 'string'
        ? message
        : {
            ...message,
            content: message.content.map((block) =>
              block.type === 'tool_result'
                ? { type: 'tool_result', tool_use_id: String(block.tool_use_id), content: '[placeholder]' }
                : block,
            ),
          },
    );
    const outputs = toResponsesInput(rewritten).filter((item) => String(item.type).endsWith('_output'));
    expect(outputs).toEqual([
      { type: 'function_call_output', call_id: 'call_001', output: '[placeholder]' },
      { type: 'custom_tool_call_output', call_id: 'call_002', output: '[placeholder]' },
    ]);
  });

  it('writes an edited tool input as new arguments and an unchanged one as it came', () => {
    const input: ResponsesInputItem[] = [
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{ "a": 1 }' },
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
    ];
    const { messages } = fromResponsesInput(input);
    expect(toResponsesInput(messages)).toEqual(input);
    const call = (messages[0]!.content as Array<{ input: unknown }>)[0]!;
    call.input = { a: '[elided]' };
    expect(toResponsesInput(messages)[0]).toMatchObject({ arguments: '{"a":"[elided]"}' });
  });

  it('writes a block of another format (Anthropic thinking, a document) as its JSON in a text part the API takes', () => {
    const thinking = { type: 'thinking', thinking: 'check the parser', signature: 'sig' };
    const document = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' } };
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'read' }, document] },
      { role: 'assistant', content: [thinking, { type: 'text', text: 'done' }] },
    ];
    const input = toResponsesInput(messages);
    const problems: ValidationProblem[] = [];
    validateResponsesInput(input, problems);
    expect(problems).toEqual([]);
    // One message item per block, as the writer writes canonical blocks.
    expect(input.map((item) => (item as { content: unknown }).content)).toEqual([
      [{ type: 'input_text', text: 'read' }],
      [{ type: 'input_text', text: JSON.stringify(document) }],
      [{ type: 'output_text', text: JSON.stringify(thinking) }],
      [{ type: 'output_text', text: 'done' }],
    ]);
  });
});

describe('round trip', () => {
  it('is exact for a Codex-like session, encrypted content and ids included', () => {
    const input = codexLikeInput();
    const text = roundTrip(input, 'You are Codex.');
    expect(text).toBe(JSON.stringify(input));
    expect(text).toContain(`${encryptedSample}1`);
  });

  it('is exact for compaction items and item references (typed and untyped)', () => {
    const input = compactedInput();
    expect(roundTrip(input)).toBe(JSON.stringify(input));
  });

  it('is exact when a function call reuses the id of an earlier custom call (found by the property)', () => {
    const input = [
      { type: 'custom_tool_call', call_id: 'c', name: 'apply_patch', input: 'x' },
      { type: 'function_call', call_id: 'c', name: 'shell', arguments: '{}' },
      { type: 'custom_tool_call_output', call_id: 'c', output: 'o' },
    ] as ResponseInputItem[];
    expect(roundTrip(input)).toBe(JSON.stringify(input));
  });

  it('is exact for every item list (property)', () => {
    fc.assert(
      fc.property(
        fc.array(arbitraryResponsesItem, { maxLength: 12 }),
        fc.option(fc.string()),
        (items, instructions) => {
          expect(roundTrip(items, instructions ?? undefined)).toBe(JSON.stringify(items));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('is stable from the canonical side: converting back and forth changes nothing more', () => {
    fc.assert(
      fc.property(fc.array(arbitraryResponsesItem, { maxLength: 12 }), (items) => {
        const first = fromResponsesInput(items as ResponsesInputItem[]);
        const again = fromResponsesInput(toResponsesInput(first.messages, first.system));
        expect(again).toEqual(first);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('unreadable input', () => {
  it.each([
    ['a number', 42, 'input'],
    ['an item that is not an object', [{ role: 'user', content: 'Hi' }, null], 'input[1]'],
  ])('throws UNREADABLE_INPUT with a path for %s', (_name, input, path) => {
    expect(() => fromResponsesInput(input as ResponsesInputItem[])).toThrow(
      expect.objectContaining({ code: 'UNREADABLE_INPUT', path }),
    );
  });
});
