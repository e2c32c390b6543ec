/**
 * What every conversation reader shares: type checks that throw `UNREADABLE_INPUT` naming the
 * source file and the path inside it.
 */
import { CompactError } from '../../model/errors.js';
import { describe } from './validate-helpers.js';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A string as JSON (its head only when long), anything else by its type: safe to put in a message. */
export function describeValue(value: unknown): string {
  return typeof value === 'string' ? describe(value) : typeName(value);
}

export function expectObject(value: unknown, path: string, source: string | undefined): JsonObject {
  if (!isObject(value)) throw unreadable(`expected object, got ${typeName(value)}`, path, source);
  return value;
}

export function expectString(value: unknown, path: string, source: string | undefined): string {
  if (typeof value !== 'string') throw unreadable(`expected string, got ${typeName(value)}`, path, source);
  return value;
}

export function unreadable(
  message: string,
  path: string | undefined,
  source: string | undefined,
  cause?: unknown,
): CompactError {
  // `file.json:3:15` and `file.jsonl:4: messages[3].content` for positions; `line 4: …` without a
  // file name; `file.json: messages[3].content` for paths.
  const startsWithLine = path !== undefined && /^\d+(:\d+)?(: |$)/.test(path);
  let where: string | undefined;
  if (source !== undefined && path !== undefined) where = `${source}${startsWithLine ? ':' : ': '}${path}`;
  else if (path !== undefined) where = startsWithLine ? `line ${path}` : path;
  else where = source;
  return new CompactError(message, { code: 'UNREADABLE_INPUT', ...(where ? { path: where } : {}), cause });
}
