/**
 * What a summary call's usage may hold: token counts, each a non-negative whole number. A model
 * written without the types, a provider or a proxy in between may report -5, 12.5, NaN, Infinity
 * (JSON's `1e400`) or `"12"`; passed on, one such value makes every total and cost built on it
 * NaN, negative or a string. Such a count is dropped, the others kept.
 */
import type { SummaryUsage } from './summary-model.js';

const USAGE_FIELDS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

/** `value` when it is a token count (a non-negative safe integer), else `undefined`. */
export function tokenCount(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/** A {@link SummaryUsage} of the `fields` that are token counts, the others left out. */
export function summaryUsageOf(fields: Partial<Record<keyof SummaryUsage, unknown>>): SummaryUsage {
  const usage: SummaryUsage = {};
  for (const field of USAGE_FIELDS) {
    const count = tokenCount(fields[field]);
    if (count !== undefined) usage[field] = count;
  }
  return usage;
}

/** The fields of `usage` that are token counts; `undefined` when `usage` is not an object. */
export function checkedSummaryUsage(usage: unknown): SummaryUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  return summaryUsageOf(usage as Partial<Record<keyof SummaryUsage, unknown>>);
}
