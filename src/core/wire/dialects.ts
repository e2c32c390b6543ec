/**
 * The registry of wire dialects. A new format is one folder under `core/wire/` and one line here;
 * the `Record` type makes the compiler name every place a format is missing.
 */
import { CompactError } from '../model/errors.js';
import { WIRE_FORMATS, type WireFormat } from '../model/wire-format.js';
import { anthropicDialect } from './anthropic/anthropic-dialect.js';
import type { WireDialect } from './dialect.js';
import { geminiDialect } from './gemini/gemini-dialect.js';
import { openAIChatDialect } from './openai-chat/openai-chat-dialect.js';
import { responsesDialect } from './responses/responses-dialect.js';

/** Every wire dialect, by format. */
export const dialects: Readonly<Record<WireFormat, WireDialect>> = {
  anthropic: anthropicDialect,
  openai: openAIChatDialect,
  responses: responsesDialect,
  gemini: geminiDialect,
};

/** True for a registered format (own keys only: `toString` is not a format). */
export function isWireFormat(value: unknown): value is WireFormat {
  return typeof value === 'string' && Object.hasOwn(dialects, value);
}

/**
 * The dialect of `format`, for a format that came from outside the type system (options, a flag).
 *
 * @throws {CompactError} code `INVALID_OPTIONS` naming the formats there are.
 */
export function dialectOf(format: unknown, describe: (value: unknown) => string = String): WireDialect {
  if (isWireFormat(format)) return dialects[format];
  const names = WIRE_FORMATS.map((name) => `"${name}"`);
  const list = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  throw new CompactError(`format must be ${list}, got ${describe(format)}`, { code: 'INVALID_OPTIONS' });
}
