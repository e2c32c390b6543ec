// The refusals of a call: the fixed part that cannot fit, and a request the breaker or a hard
// compaction leaves over the window (`CONTEXT_OVERFLOW`, before anything is archived).

import type { MaybeCompactOptions } from './compactor-options.js';
import type { CompactorSettings } from './compactor-settings.js';
import type { CompactionLayer } from './events.js';
import type { BreakerOpen } from './layers/decide-turn.js';
import { latestHumanRequest } from './layers/human-request.js';
import { CompactError } from './model/errors.js';
import type { Message } from './model/messages.js';
import type { SessionRuntime } from './session-runtime.js';
import { countMessageTokens, countSystemTokens } from './tokens/message-tokens.js';
import { countToolTokens } from './tokens/tool-tokens.js';

/**
 * With the breaker open, the request goes out without a hard compaction when it still fits the
 * model's window less the reserved output; over it, `CONTEXT_OVERFLOW`, before anything is
 * archived. Without `contextWindow` the thresholds are all the compactor knows, and being over
 * hard does not mean the provider will refuse the request: it goes out.
 */
export function assertFitsWithoutHard(
  tokensAfter: number,
  breaker: BreakerOpen,
  settings: CompactorSettings,
): void {
  const { contextWindow, reserveOutputTokens, limits } = settings;
  if (contextWindow === undefined || tokensAfter <= contextWindow - reserveOutputTokens) return;
  const why =
    breaker.reason === 'previous-hard'
      ? `the hard compaction of the previous call left ${breaker.previousTokensAfter} tokens`
      : `even a perfect summary would leave ${breaker.floorTokens} tokens (what the provider counts beyond the messages, the system prompt, tools and latest request)`;
  throw new CompactError(
    `${why}, over the mid threshold of ${limits.mid}, so summarizing would not help, and the request (${tokensAfter} tokens) does not fit the window of ${contextWindow} less ${reserveOutputTokens} reserved. Shorten the system prompt, tools or latest request`,
    { code: 'CONTEXT_OVERFLOW' },
  );
}

/**
 * What compaction cannot touch: the system prompt, the tool definitions and the latest human
 * request, counted locally and scaled by the overall ratio (`overall`) or the learned ratio of new
 * content (`delta`, which leaves the provider's own overhead out).
 */
export function fixedPart(
  input: readonly Message[],
  { system, tools }: MaybeCompactOptions,
  runtime: SessionRuntime,
  { counter }: CompactorSettings,
  scale: 'overall' | 'delta',
) {
  const { overallRatio, deltaRatio } = runtime.tokens.calibration();
  const ratio = scale === 'overall' ? overallRatio : deltaRatio;
  const scaled = (tokens: number) => Math.round(ratio * tokens);
  const request = latestHumanRequest(input);
  const systemTokens = scaled(countSystemTokens(system, counter));
  const toolTokens = scaled(countToolTokens(tools, counter));
  const requestTokens = request ? scaled(countMessageTokens({ role: 'user', content: request }, counter)) : 0;
  return { systemTokens, toolTokens, requestTokens, fixed: systemTokens + toolTokens + requestTokens };
}

/**
 * Throws `CONTEXT_OVERFLOW` at once when the fixed part alone does not fit the window less the
 * reserved output. Over hard but within the window (or with no window set) the request can still go
 * out: the layers condense the rest and the breaker keeps hard from summarizing to no effect. A
 * refusal there sent the whole history uncondensed on every call while a long paste stayed the
 * latest request.
 */
export function assertFixedPartFits(
  input: readonly Message[],
  options: MaybeCompactOptions,
  runtime: SessionRuntime,
  settings: CompactorSettings,
): void {
  const { systemTokens, toolTokens, requestTokens, fixed } = fixedPart(
    input,
    options,
    runtime,
    settings,
    'overall',
  );
  const { contextWindow, reserveOutputTokens, limits } = settings;
  if (fixed <= limits.hard || contextWindow === undefined || fixed <= contextWindow - reserveOutputTokens)
    return;
  throw new CompactError(
    `the system prompt (${systemTokens} tokens), tool definitions (${toolTokens}) and latest request (${requestTokens}) add up to ${fixed} tokens, over the hard threshold of ${limits.hard}; compaction cannot remove any of them, and they do not fit the window of ${contextWindow} less ${reserveOutputTokens} reserved`,
    { code: 'CONTEXT_OVERFLOW' },
  );
}

export function assertFitsWindow(
  layer: CompactionLayer,
  tokensAfter: number,
  settings: CompactorSettings,
): void {
  const { contextWindow, reserveOutputTokens } = settings;
  if (layer !== 'hard' || contextWindow === undefined || tokensAfter <= contextWindow - reserveOutputTokens)
    return;
  throw new CompactError(
    `after a hard compaction the context still has ${tokensAfter} tokens, over the window of ${contextWindow} less ${reserveOutputTokens} reserved; the system prompt or the latest request alone is too large`,
    { code: 'CONTEXT_OVERFLOW' },
  );
}
