/**
 * The Gemini REST API reads a request field under its JSON name (`toolConfig`) or under its proto
 * name (`tool_config`): Google's curl examples, and clients built from them, write the second.
 * Whoever adds or replaces a field in a client's request writes it under the name the client used,
 * so no object names one field twice (the API's choice between the two is its own).
 */

/** The proto name of a JSON field name: `functionCallingConfig` → `function_calling_config`. */
export function geminiProtoName(jsonName: string): string {
  return jsonName.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
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
