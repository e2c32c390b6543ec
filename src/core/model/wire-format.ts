/**
 * The one name for a provider wire format. Every per-format choice looks the format up in
 * `dialects` (`core/wire/dialects.ts`) instead of switching on it.
 */

/**
 * A provider wire format: Anthropic Messages, OpenAI Chat Completions, OpenAI Responses, or Gemini
 * `generateContent`.
 */
export type WireFormat = 'anthropic' | 'openai' | 'responses' | 'gemini';

/** Every {@link WireFormat}, in the order error messages list them. */
export const WIRE_FORMATS = [
  'anthropic',
  'openai',
  'responses',
  'gemini',
] as const satisfies readonly WireFormat[];

/**
 * The format the canonical message model is shaped after (Anthropic Messages), and so the one
 * assumed where a caller names none, as `validateMessages` does without a `format`.
 */
export const CANONICAL_FORMAT = 'anthropic' satisfies WireFormat;
