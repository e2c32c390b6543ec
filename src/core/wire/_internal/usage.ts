/** Copying a provider's usage numbers into the core's one `ProviderUsage` shape. */
import type { ProviderUsage } from '../../model/messages.js';

/** The `usage` object of an answer body (or of a streamed event carrying it at the top). */
export function usageField(answer: unknown): unknown {
  return (answer as { usage?: unknown } | undefined)?.usage;
}

/**
 * Copies the numeric fields of `usage` named in `fields` (`[from, to]`) into a `ProviderUsage`;
 * `undefined` when `usage` is not an object or carries none of them.
 */
export function copyUsage(
  usage: unknown,
  fields: readonly (readonly [string, keyof ProviderUsage])[],
): ProviderUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  const result: ProviderUsage = {};
  for (const [from, to] of fields) {
    const value = record[from];
    if (typeof value === 'number') (result as Record<string, number>)[to] = value;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

/** Anthropic and OpenAI Chat name their usage fields as the core does. */
export const SAME_NAMED_USAGE = [
  ['input_tokens', 'input_tokens'],
  ['cache_creation_input_tokens', 'cache_creation_input_tokens'],
  ['cache_read_input_tokens', 'cache_read_input_tokens'],
  ['output_tokens', 'output_tokens'],
  ['prompt_tokens', 'prompt_tokens'],
  ['completion_tokens', 'completion_tokens'],
] as const;

/** Anthropic puts usage in `message_start.message.usage` and `message_delta.usage`; Responses in `response.usage`. */
function eventUsageField(event: Record<string, unknown>): unknown {
  if (event.usage !== undefined && event.usage !== null) return event.usage;
  const nested = (event.message ?? event.response) as { usage?: unknown } | undefined;
  return nested?.usage;
}

/** A dialect's `eventUsage` for a format whose events carry a `usage` object: each field the latest reported. */
export function eventUsageOf(
  fields: readonly (readonly [string, keyof ProviderUsage])[],
): (event: Record<string, unknown>, sofar: ProviderUsage | undefined) => ProviderUsage | undefined {
  return (event, sofar) => {
    const usage = copyUsage(eventUsageField(event), fields);
    return usage ? { ...sofar, ...usage } : sofar;
  };
}
