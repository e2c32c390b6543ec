/**
 * The Gemini REST API reads a field under its JSON name (`toolConfig`, `functionResponse`) or under
 * its proto name (`tool_config`, `function_response`): Google's curl examples, and clients built
 * from them, write the second. This holds for the request's fields and for a part's. Whoever adds
 * or replaces a field in a client's request writes it under the name the client used, so no object
 * names one field twice (the API's choice between the two is its own).
 */
import { isRecord } from '../_internal/validate-helpers.js';
import { GEMINI_DATA_FIELDS, type GeminiDataField, type GeminiPart } from './gemini-types.js';

/** The proto name of a JSON field name: `functionCallingConfig` → `function_calling_config`. */
export function geminiProtoName(jsonName: string): string {
  return jsonName.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The JSON name of a proto field name: `thought_signature` → `thoughtSignature`. */
export function geminiJsonName(protoName: string): string {
  return protoName.replace(/_([a-z])/g, (_underscore, letter: string) => letter.toUpperCase());
}

/**
 * The name `record` holds the field under: the proto name when only that one is there, else the
 * JSON name (also for a record that holds neither, or that is no record).
 */
export function geminiFieldName(record: unknown, jsonName: string): string {
  if (typeof record !== 'object' || record === null) return jsonName;
  const protoName = geminiProtoName(jsonName);
  return !Object.hasOwn(record, jsonName) && Object.hasOwn(record, protoName) ? protoName : jsonName;
}

/** The field's value under whichever name `record` holds it. */
export function geminiField(record: Record<string, unknown>, jsonName: string): unknown {
  return record[geminiFieldName(record, jsonName)];
}

/** True when `record` holds the field under either name. */
export function hasGeminiField(record: object, jsonName: string): boolean {
  return Object.hasOwn(record, geminiFieldName(record, jsonName));
}

/** Each data field with its proto name, worked out once: every part of every request is looked up. */
const dataFieldNames = GEMINI_DATA_FIELDS.map((field) => [field, geminiProtoName(field)] as const);

/** The data field a part carries (under either name), or undefined when it has none of the known ones. */
export function dataFieldOf(part: object): GeminiDataField | undefined {
  return dataFieldNames.find(
    ([jsonName, protoName]) => Object.hasOwn(part, jsonName) || Object.hasOwn(part, protoName),
  )?.[0];
}

/**
 * True when the part, or its data object (`file_data: { file_uri }`), names a field by its proto
 * name: a part written in its place is written in proto names too.
 */
export function namesProtoFields(part: GeminiPart): boolean {
  const field = dataFieldOf(part);
  const data = field === undefined ? undefined : geminiField(part, field);
  return [part, data].some((record) => isRecord(record) && Object.keys(record).some(isProtoName));
}

/**
 * The part with its fields, and the fields of its data object, under their proto names. Deeper
 * keys (a call's `args`, a response's `response`) are the client's own and stay as they are.
 */
export function withProtoNames(part: GeminiPart): GeminiPart {
  return Object.fromEntries(
    Object.entries(part).map(([key, value]) => [
      geminiProtoName(key),
      isDataField(key) && isRecord(value) ? protoNamedKeys(value) : value,
    ]),
  );
}

function protoNamedKeys(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [geminiProtoName(key), value]));
}

function isDataField(key: string): boolean {
  return (GEMINI_DATA_FIELDS as readonly string[]).includes(key);
}

function isProtoName(key: string): boolean {
  return key.includes('_');
}

/**
 * `parts` written as the client writes the `contents` they join: under proto names when a part of
 * those contents names its fields so (a follow-up the proxy adds to a client's request), else as
 * they are.
 */
export function partsSpelledLike(contents: readonly unknown[], parts: readonly GeminiPart[]): GeminiPart[] {
  const proto = contents.some(
    (content) =>
      isRecord(content) && Array.isArray(content.parts) && content.parts.some(partNamesProtoFields),
  );
  return proto ? parts.map(withProtoNames) : [...parts];
}

function partNamesProtoFields(part: unknown): boolean {
  return isRecord(part) && namesProtoFields(part);
}
