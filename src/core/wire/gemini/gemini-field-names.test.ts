import { describe, expect, it } from 'vitest';
import {
  dataFieldOf,
  geminiField,
  geminiFieldName,
  geminiJsonName,
  geminiProtoName,
  namesProtoFields,
  partsSpelledLike,
  withProtoNames,
} from './gemini-field-names.js';
import type { GeminiPart } from './gemini-types.js';

describe('Gemini field names', () => {
  it.each([
    ['toolConfig', 'tool_config'],
    ['functionCallingConfig', 'function_calling_config'],
    ['maxOutputTokens', 'max_output_tokens'],
    ['contents', 'contents'],
  ])('the proto name of %s is %s', (jsonName, protoName) => {
    expect(geminiProtoName(jsonName)).toBe(protoName);
  });

  it.each<[unknown, string]>([
    [{ tool_config: {} }, 'tool_config'],
    [{ toolConfig: {} }, 'toolConfig'],
    // Both, or neither: the JSON name, as the official SDKs write it.
    [{ toolConfig: {}, tool_config: {} }, 'toolConfig'],
    [{}, 'toolConfig'],
    [undefined, 'toolConfig'],
    ['not a record', 'toolConfig'],
  ])('%o holds toolConfig as %s', (record, name) => {
    expect(geminiFieldName(record, 'toolConfig')).toBe(name);
  });
  it('reads a field under either name', () => {
    expect(geminiField({ generation_config: { temperature: 0 } }, 'generationConfig')).toEqual({
      temperature: 0,
    });
    expect(geminiField({ generationConfig: 1 }, 'generationConfig')).toBe(1);
    expect(geminiField({}, 'generationConfig')).toBeUndefined();
  });

  it.each([
    ['thought_signature', 'thoughtSignature'],
    ['function_response', 'functionResponse'],
    ['text', 'text'],
    ['thoughtSignature', 'thoughtSignature'],
  ])('the JSON name of %s is %s', (name, jsonName) => {
    expect(geminiJsonName(name)).toBe(jsonName);
  });

  it('finds a part’s data field under either name', () => {
    expect(dataFieldOf({ function_response: {} })).toBe('functionResponse');
    expect(dataFieldOf({ inlineData: {} })).toBe('inlineData');
    expect(dataFieldOf({ thought_signature: 'x' })).toBeUndefined();
  });

  it.each<[GeminiPart, boolean]>([
    [{ function_call: { name: 'ls' } }, true],
    [{ file_data: { file_uri: 'gs://b/a' } }, true],
    [{ inlineData: { mimeType: 'image/png', data: 'iVBO', display_name: 'a.png' } }, true],
    [{ functionCall: { name: 'ls', args: { dir_name: '.' } } }, false],
    [{ text: 'x', partMetadata: { my_key: 1 } }, false],
  ])('%o names proto fields: %s', (part, expected) => {
    expect(namesProtoFields(part)).toBe(expected);
  });

  it('writes a part’s fields and its data object’s in proto names, not the client’s own keys', () => {
    expect(
      withProtoNames({
        functionCall: { name: 'ls', args: { dirName: '.' } },
        thoughtSignature: 's',
      }),
    ).toEqual({ function_call: { name: 'ls', args: { dirName: '.' } }, thought_signature: 's' });
    expect(withProtoNames({ fileData: { mimeType: 'image/png', fileUri: 'gs://b/a' } })).toEqual({
      file_data: { mime_type: 'image/png', file_uri: 'gs://b/a' },
    });
  });

  const response: GeminiPart = { functionResponse: { id: 'c1', name: 'recall', response: { output: 'x' } } };
  const user = (...parts: unknown[]) => ({ role: 'user', parts });

  it.each([
    [
      'proto-named parts',
      [user({ text: 'go' }), user({ function_response: { name: 'ls', response: {} } })],
      true,
    ],
    ['JSON-named parts', [user({ functionResponse: { name: 'ls', response: {} } })], false],
    ['text only', [user({ text: 'go' })], false],
    ['no parts at all', [{ role: 'user' }, 'junk'], false],
  ])('writes parts joining contents of %s in proto names: %s', (_name, contents, proto) => {
    const [written] = partsSpelledLike(contents, [response]);
    expect(Object.keys(written!)).toEqual([proto ? 'function_response' : 'functionResponse']);
  });
});
