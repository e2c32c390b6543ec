/**
 * The replay's clock and its latency model: when each request was made (for the prompt cache's
 * lifetime), and how long a summary call keeps the agent waiting.
 */

/** Anthropic's default prompt-cache lifetime: 5 minutes. */
export const defaultCacheTtlSeconds = 300;

/**
 * Seconds between two requests when the transcript records no times. The shared mini-swe-agent runs,
 * which do, average 7 s between requests (median 4 s); 10 s rounds that up for slower models.
 */
export const defaultTurnSeconds = 10;

/** How long a model call takes: `ttft + input ÷ prefill speed + output ÷ decode speed`. */
export interface LatencyModel {
  /** Time to first token, seconds. @default 1 */
  ttftSeconds: number;
  /** Input tokens processed per second. @default 10000 */
  prefillTokensPerSecond: number;
  /** Output tokens written per second. @default 60 */
  decodeTokensPerSecond: number;
}

/**
 * Defaults close to a Sonnet-class model behind a public API: about a second to the first token,
 * prefill in the order of ten thousand tokens a second, and 60 output tokens a second.
 */
export const defaultLatencyModel: LatencyModel = {
  ttftSeconds: 1,
  prefillTokensPerSecond: 10_000,
  decodeTokensPerSecond: 60,
};

/** Seconds one model call takes under the latency model. */
export function callSeconds(
  { inputTokens, outputTokens }: { inputTokens: number; outputTokens: number },
  latency: LatencyModel,
): number {
  return (
    latency.ttftSeconds +
    inputTokens / latency.prefillTokensPerSecond +
    outputTokens / latency.decodeTokensPerSecond
  );
}

/** The replay's clock settings. */
export interface ReplayClock {
  /** A request more than this many seconds after the previous one reads nothing from the cache. */
  cacheTtlSeconds: number;
  /** Seconds between requests where the transcript has no times. */
  turnSeconds: number;
}

/** The default clock: a 300 s cache lifetime and 10 s turns. */
export const defaultReplayClock: ReplayClock = {
  cacheTtlSeconds: defaultCacheTtlSeconds,
  turnSeconds: defaultTurnSeconds,
};

/**
 * The time of each request in seconds from the first: recorded times where the transcript has them
 * (and they do not run backwards), the previous time plus `turnSeconds` elsewhere.
 */
export function requestTimes(
  turns: number,
  timestamps: readonly (number | undefined)[] | undefined,
  turnSeconds: number,
): number[] {
  const times: number[] = [];
  const first = timestamps?.find((value) => value !== undefined);
  let previousRecorded: number | undefined;
  for (let turn = 0; turn < turns; turn++) {
    const recorded = timestamps?.[turn];
    const previous = times[turn - 1];
    if (recorded !== undefined && first !== undefined && (previousRecorded ?? -Infinity) <= recorded) {
      const time = (recorded - first) / 1000;
      times.push(previous === undefined ? time : Math.max(previous, time));
      previousRecorded = recorded;
    } else {
      times.push(previous === undefined ? 0 : previous + turnSeconds);
    }
  }
  return times;
}
