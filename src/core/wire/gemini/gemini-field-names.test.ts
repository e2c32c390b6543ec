import { describe, expect, it } from 'vitest';
import { geminiField, geminiFieldName, geminiProtoName } from './gemini-field-names.js';

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
});
