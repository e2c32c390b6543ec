import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateMessages } from '../../conversation/validate.js';
import type { ContentBlock, ToolResultBlock } from '../../model/messages.js';
import { fromGeminiContents } from './gemini-format.js';
import { geminiSession, protoNamed } from './gemini-session.test-utils.js';
import type { GeminiContent, GeminiPart } from './gemini-types.js';
import { toGeminiContents } from './gemini-write.js';

const roundTrip = (contents: unknown) => toGeminiContents(fromGeminiContents(contents).messages);

const text = fc.string({ maxLength: 12 });
const record = fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 3,
});
const signature = fc.option(fc.base64String({ minLength: 4, maxLength: 12 }), { nil: undefined });
const signed = (part: GeminiPart, sig: string | undefined): GeminiPart =>
  sig === undefined ? part : { ...part, thoughtSignature: sig };

const anyPart: fc.Arbitrary<GeminiPart> = fc.oneof(
  fc.tuple(text, signature).map(([value, sig]) => signed({ text: value }, sig)),
  fc.tuple(text, signature).map(([value, sig]) => signed({ text: value, thought: true }, sig)),
  fc
    .tuple(fc.option(text, { nil: undefined }), text, record, signature)
    .map(([id, name, args, sig]) =>
      signed({ functionCall: { ...(id === undefined ? {} : { id }), name, args } }, sig),
    ),
  fc
    .tuple(
      fc.option(text, { nil: undefined }),
      text,
      fc.oneof(
        record,
        text.map((output) => ({ output })),
      ),
    )
    .map(([id, name, response]) => ({
      functionResponse: { ...(id === undefined ? {} : { id }), name, response },
    })),
  // A response with parts of its own: images (read as such) or anything else (kept whole).
  fc
    .tuple(
      text,
      text,
      fc.array(
        fc.oneof(
          fc.base64String({ maxLength: 16 }).map((data) => ({ inlineData: { mimeType: 'image/png', data } })),
          text.map((fileUri) => ({ fileData: { mimeType: 'application/pdf', fileUri } })),
          record,
        ),
        { maxLength: 3 },
      ),
    )
    .map(([name, output, parts]) => ({ functionResponse: { name, response: { output }, parts } })),
  fc
    .tuple(text, fc.base64String({ maxLength: 16 }))
    .map(([mimeType, data]) => ({ inlineData: { mimeType, data } })),
  fc.tuple(fc.option(text, { nil: undefined }), text).map(([mimeType, fileUri]) => ({
    fileData: { ...(mimeType === undefined ? {} : { mimeType }), fileUri },
  })),
  fc.tuple(text, text).map(([language, code]) => ({ executableCode: { language, code } })),
  fc.tuple(text, text).map(([outcome, output]) => ({ codeExecutionResult: { outcome, output } })),
  record,
);

// `role` may be absent only on a content with parts: the reader keeps that on its first block.
const anyContents = fc.array(
  fc.oneof(
    fc.record({ role: fc.constantFrom('user', 'model'), parts: fc.array(anyPart, { maxLength: 4 }) }),
    fc.record({ parts: fc.array(anyPart, { minLength: 1, maxLength: 4 }) }),
  ),
  { maxLength: 6 },
);

describe('fromGeminiContents / toGeminiContents', () => {
  it('round-trips any contents byte for byte', () => {
    fc.assert(
      fc.property(anyContents, (contents) => {
        expect(JSON.stringify(roundTrip(contents))).toBe(JSON.stringify(contents));
      }),
    );
  });

  it('round-trips any contents written in proto names byte for byte', () => {
    fc.assert(
      fc.property(anyContents.map(protoNamed), (contents) => {
        expect(JSON.stringify(roundTrip(contents))).toBe(JSON.stringify(contents));
      }),
    );
  });

  it('reads parts written in proto names as the same blocks as in JSON names', () => {
    const contents: GeminiContent[] = [
      ...geminiSession(2),
      {
        role: 'user',
        parts: [
          { inlineData: { mimeType: 'image/png', data: 'iVBO' } },
          { fileData: { mimeType: 'application/pdf', fileUri: 'gs://b/f.pdf' } },
        ],
      },
      {
        role: 'model',
        parts: [
          { text: 'plan', thought: true, thoughtSignature: 'sig1' },
          { executableCode: { language: 'PYTHON', code: 'print(1)' } },
        ],
      },
    ];
    const blocks = (source: unknown) =>
      fromGeminiContents(source).messages.map((message) =>
        (message.content as Record<string, unknown>[]).map(({ provider_data: _data, ...block }) => block),
      );
    const read = blocks(protoNamed(contents));
    expect(read).toEqual(blocks(contents));
    expect(read.flat().map((block) => block.type)).not.toContain('gemini_part');
  });

  it('reads each part kind into the canonical model', () => {
    const { messages, system } = fromGeminiContents(
      [
        { role: 'user', parts: [{ text: 'Look' }, { inlineData: { mimeType: 'image/png', data: 'iVBO' } }] },
        {
          role: 'model',
          parts: [
            { text: 'plan', thought: true, thoughtSignature: 'sig1' },
            { functionCall: { name: 'ls', args: { dir: '.' } } },
            { executableCode: { language: 'PYTHON', code: 'print(1)' } },
          ],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'ls', response: { output: 'a\nb' } } }] },
      ],
      { systemInstruction: { parts: [{ text: 'Be brief.' }] } },
    );
    const bare = messages.map((message) => ({
      role: message.role,
      content: (message.content as Record<string, unknown>[]).map(
        ({ provider_data: _data, ...block }: Record<string, unknown>) => block,
      ),
    }));
    expect(system).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(bare).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "Look",
              "type": "text",
            },
            {
              "source": {
                "data": "iVBO",
                "media_type": "image/png",
                "type": "base64",
              },
              "type": "image",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "signature": "sig1",
              "thinking": "plan",
              "type": "thinking",
            },
            {
              "id": "gemini_call_1_1",
              "input": {
                "dir": ".",
              },
              "name": "ls",
              "type": "tool_use",
            },
            {
              "type": "gemini_executable_code",
              "value": {
                "code": "print(1)",
                "language": "PYTHON",
              },
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "content": "a
      b",
              "tool_use_id": "gemini_call_1_1",
              "type": "tool_result",
            },
          ],
          "role": "user",
        },
      ]
    `);
  });

  it('pairs responses without ids by name; one of another name answers no call', () => {
    const { messages } = fromGeminiContents([
      {
        role: 'model',
        parts: [{ functionCall: { name: 'a', args: {} } }, { functionCall: { name: 'b', args: {} } }],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'b', response: {} } },
          { functionResponse: { name: 'x', response: {} } },
        ],
      },
    ]);
    const ids = (messages[1]!.content as { tool_use_id: string }[]).map((block) => block.tool_use_id);
    expect(ids).toEqual(['gemini_call_0_1', 'gemini_response_1_1']);
  });

  it('pairs a response with an id with a call without one by name, as the API does, and writes it back as it came', () => {
    const contents: GeminiContent[] = [
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'model', parts: [{ functionCall: { name: 'ls', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'r1', name: 'ls', response: { output: 'a' } } }] },
    ];
    const { messages } = fromGeminiContents(contents);
    expect(messages[2]!.content).toMatchObject([{ tool_use_id: 'gemini_call_1_0', content: 'a' }]);
    expect(validateMessages(messages)).toEqual([]);
    expect(toGeminiContents(messages)).toEqual(contents);
    const result = (messages[2]!.content as ContentBlock[])[0]!;
    const masked = [
      ...messages.slice(0, 2),
      { role: 'user' as const, content: [{ ...result, content: '[masked]' }] },
    ];
    expect(toGeminiContents(masked)[2]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { id: 'r1', name: 'ls', response: { output: '[masked]' } } }],
    });
  });

  it('writes a rewritten tool result as a functionResponse with the call name, and keeps the call signature', () => {
    const contents = geminiSession(1, { ids: false });
    const { messages } = fromGeminiContents(contents);
    const use = (messages[1]!.content as ContentBlock[])[1]!;
    messages[1] = {
      role: 'assistant',
      content: [(messages[1]!.content as never[])[0]!, { ...use, input: { absolute_path: '[elided]' } }],
    };
    messages[2] = {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: String((use as { id: string }).id), content: '[masked]' },
      ],
    };
    const written = toGeminiContents(messages);
    expect(written[1]!.parts[1]).toEqual({
      functionCall: { name: 'read_file', args: { absolute_path: '[elided]' } },
      thoughtSignature: 'c2lnbmF0dXJl0',
    });
    expect(written[2]!.parts).toEqual([
      { functionResponse: { name: 'read_file', response: { output: '[masked]' } } },
    ]);
    expect(written[1]!.parts[0]).toBe(contents[1]!.parts[0]);
  });

  it("reads the images of a response's own parts after its text, and writes a changed response with them in place", () => {
    const contents = geminiSession(1, { images: true });
    const { messages } = fromGeminiContents(contents);
    const result = (messages[2]!.content as ContentBlock[])[0] as ToolResultBlock;
    const [first, image] = result.content as ContentBlock[];
    expect(first).toMatchObject({ type: 'text' });
    expect(image).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png' } });
    messages[2] = {
      role: 'user',
      content: [{ ...result, content: [{ type: 'text', text: 'shorter' }, image!] }],
    };
    const [written] = toGeminiContents(messages)[2]!.parts;
    const original = contents[2]!.parts[0]!.functionResponse!;
    expect(written).toEqual({ functionResponse: { ...original, response: { output: 'shorter' } } });
    expect(written!.functionResponse!.parts![0]).toBe(original.parts![0]);
  });

  it('names an image in the text of a response whose client sent none in its parts', () => {
    const { messages } = fromGeminiContents(geminiSession(1));
    const result = (messages[2]!.content as ContentBlock[])[0] as ToolResultBlock;
    const image = {
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/png', data: 'AAAA' },
    };
    messages[2] = { role: 'user', content: [{ ...result, content: [{ type: 'text', text: 'out' }, image] }] };
    expect(toGeminiContents(messages)[2]!.parts[0]!.functionResponse).toEqual({
      id: 'call_0',
      name: 'read_file',
      response: { output: 'out\n[image]' },
    });
  });

  it('writes a changed part in proto names when the client wrote it in them, never beside a JSON name', () => {
    const contents = protoNamed([
      ...geminiSession(1, { ids: false }),
      { role: 'user', parts: [{ fileData: { mimeType: 'image/png', fileUri: 'gs://b/a.png' } }] },
    ]);
    const { messages } = fromGeminiContents(contents);
    const [thought, use] = messages[1]!.content as ContentBlock[];
    const [image] = messages[3]!.content as ContentBlock[];
    messages[1] = {
      role: 'assistant',
      content: [thought!, { ...use!, input: { absolute_path: '[elided]' } }],
    };
    // A placeholder as micro writes it: a new block, spelled as the call it answers.
    const id = String((use as { id: string }).id);
    messages[2] = { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: '[masked]' }] };
    messages[3] = { role: 'user', content: [{ ...image!, source: { type: 'url', url: 'gs://b/b.png' } }] };
    const written = toGeminiContents(messages);
    expect(written[1]!.parts).toEqual([
      contents[1]!.parts[0],
      {
        function_call: { name: 'read_file', args: { absolute_path: '[elided]' } },
        thought_signature: 'c2lnbmF0dXJl0',
      },
    ]);
    expect(written[1]!.parts[0]).toBe(contents[1]!.parts[0]);
    expect(written[2]!.parts).toEqual([
      { function_response: { name: 'read_file', response: { output: '[masked]' } } },
    ]);
    expect(written[3]!.parts).toEqual([{ file_data: { mime_type: 'image/png', file_uri: 'gs://b/b.png' } }]);
  });

  it.each([
    ['not an array', { contents: 'x' }, 'contents'],
    ['a content that is not an object', [1], 'contents[0]'],
    ['parts that is not an array', [{ role: 'user', parts: 'x' }], 'contents[0].parts'],
  ])('throws INVALID_TRANSCRIPT with the path for %s', (_name, contents, path) => {
    expect(() => fromGeminiContents(contents)).toThrow(
      expect.objectContaining({ code: 'INVALID_TRANSCRIPT', path }),
    );
  });
});

describe('blocks read from parts', () => {
  const contents = () => [
    { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'ls', args: {} } }] },
    {
      role: 'user',
      parts: [{ text: 'hi' }, { functionResponse: { id: 'c1', name: 'ls', response: { output: 'a' } } }],
    },
  ];

  it('have provider_data last: copies of the contents read to the same JSON, so the same fingerprint', () => {
    const first = fromGeminiContents(contents()).messages;
    const second = fromGeminiContents(contents()).messages;
    expect(JSON.stringify(first[1])).toBe(
      '{"role":"user","content":[' +
        '{"type":"text","text":"hi","provider_data":{"gemini":{"part":{"text":"hi"}}}},' +
        '{"type":"tool_result","tool_use_id":"c1","content":"a","provider_data":{"gemini":{"part":{"functionResponse":{"id":"c1","name":"ls","response":{"output":"a"}}}}}}]}',
    );
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(second[1]).not.toBe(first[1]);
  });

  it('are the same message objects when the same content objects are read again in the same place', () => {
    const sent = contents();
    const first = fromGeminiContents(sent).messages;
    const again = fromGeminiContents([...sent, { role: 'model', parts: [{ text: 'done' }] }]).messages;
    expect(again[0]).toBe(first[0]);
    expect(again[1]).toBe(first[1]);
    // Elsewhere the same object is read again: its synthetic ids depend on where it stands.
    const call = { role: 'model', parts: [{ functionCall: { name: 'ls', args: {} } }] };
    const [atZero] = fromGeminiContents([call]).messages;
    const [, atOne] = fromGeminiContents([{ role: 'user', parts: [{ text: 'go' }] }, call]).messages;
    expect(atOne).not.toBe(atZero);
    expect((atOne!.content as ContentBlock[])[0]).toMatchObject({ id: 'gemini_call_1_0' });
  });

  it('reads a response again when the call before it changed (an id-less response answers that call)', () => {
    const response = {
      role: 'user',
      parts: [{ functionResponse: { name: 'ls', response: { output: 'a' } } }],
    };
    const callOf = (id: string) => ({
      role: 'model',
      parts: [{ functionCall: { id, name: 'ls', args: {} } }],
    });
    const first = fromGeminiContents([callOf('c1'), response]).messages;
    const second = fromGeminiContents([callOf('c2'), response]).messages;
    expect((first[1]!.content as ContentBlock[])[0]).toMatchObject({ tool_use_id: 'c1' });
    expect((second[1]!.content as ContentBlock[])[0]).toMatchObject({ tool_use_id: 'c2' });
  });
});
