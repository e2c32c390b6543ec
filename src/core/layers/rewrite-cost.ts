/**
 * The prompt-cache cost of condensing the history: whether a rewrite frees enough to pay for
 * itself. A provider's cache serves the prefix a request shares with the one before; a layer that
 * changes a message at some point makes the provider write everything from there on again instead
 * of reading it. Units are base input tokens (Anthropic's prices: a cache write costs 1.25× a token,
 * a read 0.1×, the model `src/simulate/prompt-cache.ts` bills).
 *
 * Condensing `rewritten` tokens (from the first changed message to the end) down by `freed`:
 * - this request writes `rewritten − freed` instead of reading `rewritten`: it costs
 *   `write × (rewritten − freed) − read × rewritten` more;
 * - every later request reads `freed` fewer tokens: it saves `read × freed`.
 * The rewrite pays when what the next {@link MID_PAYBACK_TURNS} requests save covers what this one
 * costs more.
 */

/** A cache write, in base input tokens (Anthropic's 5-minute cache: 1.25×). */
export const CACHE_WRITE_MULTIPLIER = 1.25;
/** A cache read, in base input tokens (0.1×). */
export const CACHE_READ_MULTIPLIER = 0.1;
/**
 * The requests a mid rewrite has to pay for itself in. Measured on the shared transcripts
 * (`npm run bench -- mid-cost`, BENCHMARKS.md): about the requests between two compactions of
 * the history there.
 */
export const MID_PAYBACK_TURNS = 20;

/** What a rewrite changes, in tokens. */
export interface Rewrite {
  /** Tokens of the request from the first message the rewrite changes to its end, before it. */
  rewrittenTokens: number;
  /** Tokens the rewrite frees. */
  freedTokens: number;
}

/** Base input tokens the rewrite costs more on this request (negative: it is cheaper at once). */
export function rewriteCost({ rewrittenTokens, freedTokens }: Rewrite): number {
  const written = Math.max(0, rewrittenTokens - freedTokens);
  return CACHE_WRITE_MULTIPLIER * written - CACHE_READ_MULTIPLIER * rewrittenTokens;
}

/** True when the reads the rewrite saves over `paybackTurns` requests cover its extra cache writes. */
export function rewritePays(rewrite: Rewrite, paybackTurns: number = MID_PAYBACK_TURNS): boolean {
  if (!(rewrite.freedTokens > 0)) return false;
  return CACHE_READ_MULTIPLIER * rewrite.freedTokens * paybackTurns >= rewriteCost(rewrite);
}

/**
 * A summary's output token, in base input tokens (Anthropic's Sonnet: $15 against $3 a million).
 */
export const SUMMARY_OUTPUT_MULTIPLIER = 5;

/** A summary weighed on a request whose prompt cache expired (nothing cached: it is all written). */
export interface ExpiredSummary {
  /** The request's tokens. */
  tokens: number;
  /** What the summary would leave: the fixed part and the summary's budgets. */
  keptTokens: number;
  /** The summary call's output budget. */
  summaryOutputTokens: number;
}

/**
 * True when a summary on a request whose cache expired pays for its call within
 * {@link MID_PAYBACK_TURNS} requests. The request is written whole either way, so the summary
 * rewrites no cache: this request writes `freed` fewer tokens and every later one reads `freed`
 * fewer, against the call, which reads the whole request uncached and writes its output.
 */
export function summaryPaysOnExpiredCache(
  { tokens, keptTokens, summaryOutputTokens }: ExpiredSummary,
  paybackTurns: number = MID_PAYBACK_TURNS,
): boolean {
  const freed = tokens - keptTokens;
  if (!(freed > 0)) return false;
  const saved = CACHE_WRITE_MULTIPLIER * freed + CACHE_READ_MULTIPLIER * freed * paybackTurns;
  return saved >= tokens + SUMMARY_OUTPUT_MULTIPLIER * summaryOutputTokens;
}
