/**
 * What a token costs: the prices the dashboard and `wrap`'s savings line bill a session's requests
 * at, and the replay lab's default (src/simulate/prompt-cache.ts).
 */

/** Prices in US dollars per million tokens, and the cache multipliers. */
export interface PriceTable {
  /** A name for the report, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** Base input price, $ per million tokens. @default 3 */
  inputPerMillion: number;
  /** Output price, $ per million tokens. @default 15 */
  outputPerMillion: number;
  /** Cache writes cost this much of the base input price. @default 1.25 */
  cacheWriteMultiplier: number;
  /** Cache reads cost this much of the base input price. @default 0.1 */
  cacheReadMultiplier: number;
}

/** Claude Sonnet 4.5 list prices with 5-minute prompt caching. */
export const defaultPriceTable: PriceTable = {
  model: 'claude-sonnet-4-5',
  inputPerMillion: 3,
  outputPerMillion: 15,
  cacheWriteMultiplier: 1.25,
  cacheReadMultiplier: 0.1,
};
