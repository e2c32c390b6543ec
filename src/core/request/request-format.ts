/**
 * Which provider API a whole request body is written for, read from the body's own fields.
 */

// Telling the formats apart is the formats' own business: it lives beside the registry.
export { detectRequestFormat } from '../wire/detect-format.js';

/** True for a JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON type of a value, for error messages. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
