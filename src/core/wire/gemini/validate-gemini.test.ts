import { describe, expect, it } from 'vitest';
import { validateMessages } from '../../conversation/validate.js';
import { geminiSession, protoNamed } from './gemini-session.test-utils.js';

const problemsOf = (contents: unknown) =>
  validateMessages(contents, { format: 'gemini' }).map(({ path, rule }) => `${path} ${rule}`);

describe('validateMessages with format gemini', () => {
  it('accepts a signed Gemini CLI session, with and without call ids', () => {
    expect(problemsOf(geminiSession(3))).toEqual([]);
    expect(problemsOf(geminiSession(3, { ids: false }))).toEqual([]);
  });

  it('reads parts under their proto names as under their JSON names, as the API does', () => {
    expect(problemsOf(protoNamed(geminiSession(3)))).toEqual([]);
    expect(problemsOf(protoNamed(geminiSession(3, { ids: false })))).toEqual([]);
    const stripped = protoNamed(geminiSession(3));
    delete stripped[5]!.parts[1]!.thought_signature;
    expect(problemsOf(stripped)).toEqual(['contents[5].parts[1] missing-thought-signature']);
    const orphan = protoNamed(geminiSession(2));
    orphan[4]!.parts[0] = { function_response: { id: 'other', name: 'ls', response: {} } };
    expect(problemsOf(orphan)).toEqual([
      'contents[4].parts[0] orphan-tool-result',
      'contents[3].parts[1] unanswered-tool-use',
    ]);
  });

  it.each([
    ['contents that is not an array', { role: 'user' }, ['contents messages-not-array']],
    ['a content that is not an object', ['hi'], ['contents[0] message-not-object']],
    ['a bad role', [{ role: 'assistant', parts: [{ text: 'x' }] }], ['contents[0].role invalid-role']],
    [
      'an unknown part type',
      [{ role: 'user', parts: [{ text: 'x' }, { audio: 'x' }] }],
      ['contents[0].parts[1] unknown-part-type'],
    ],
    [
      'two data fields in a part',
      [{ role: 'user', parts: [{ text: 'x', inlineData: {} }] }],
      ['contents[0].parts[0] unknown-part-type'],
    ],
    [
      'one data field under both its names',
      [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBO' }, inline_data: {} }] }],
      ['contents[0].parts[0] unknown-part-type'],
    ],
    [
      'a functionResponse with no call',
      [
        { role: 'user', parts: [{ text: 'go' }] },
        { role: 'model', parts: [{ text: 'ok' }] },
        { role: 'user', parts: [{ functionResponse: { name: 'ls', response: {} } }] },
      ],
      ['contents[2].parts[0] orphan-tool-result'],
    ],
    [
      'a call left unanswered',
      [
        { role: 'model', parts: [{ functionCall: { id: 'a', name: 'ls', args: {} } }] },
        { role: 'user', parts: [{ text: 'never mind' }] },
      ],
      ['contents[0].parts[0] unanswered-tool-use'],
    ],
    [
      'a content with no parts',
      [
        { role: 'user', parts: [{ text: 'go' }] },
        { role: 'model', parts: [] },
        { role: 'user', parts: [{ text: 'go on' }] },
      ],
      ['contents[1].parts empty-content'],
    ],
  ])('reports %s', (_name, contents, expected) => {
    expect(problemsOf(contents)).toEqual(expected);
  });

  it('reports a current-turn model step whose signature was stripped, with a one-line message', () => {
    const contents = geminiSession(3);
    delete contents[5]!.parts[1]!.thoughtSignature;
    const problems = validateMessages(contents, { format: 'gemini' });
    expect(problems).toEqual([
      {
        path: 'contents[5].parts[1]',
        rule: 'missing-thought-signature',
        message: 'functionCall of the current turn lost its thoughtSignature',
      },
    ]);
  });

  it('does not ask for signatures before the current turn, nor from an unsigned conversation', () => {
    const earlier = [...geminiSession(2), { role: 'user', parts: [{ text: 'next task' }] }];
    delete earlier[1]!.parts[1]!.thoughtSignature;
    expect(problemsOf(earlier)).toEqual([]);
    const unsigned = geminiSession(2);
    for (const content of unsigned) for (const part of content.parts) delete part.thoughtSignature;
    expect(problemsOf(unsigned)).toEqual([]);
  });
});
