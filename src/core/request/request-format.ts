/**
 * Which provider API a whole request body is written for, read from the body's own fields.
 */
import type { WireFormat } from '../model/wire-format.js';

// Telling the formats apart is the formats' own business: it lives beside the registry.
export { detectRequestFormat } from '../wire/detect-format.js';

/**
 * The API a whole request body is written for.
 * @deprecated Use `WireFormat` (from `agent-compact/wire`): the same union under its one name.
 */
export type RequestFormat = WireFormat;

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
