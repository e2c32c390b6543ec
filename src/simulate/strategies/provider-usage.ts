/**
 * Internal: peers that read the provider's usage. Claude Code compacts when the usage the API
 * reported for its last response, plus an estimate of what came after, nears the window; Codex
 * when the reported total usage passes its limit; opencode when the last response's reported tokens
 * overflow; Anthropic's context editing counts the request on the server. All in the provider's
 * tokens, not o200k: on one mini-swe-agent run Gemini 3 Pro reported 16,417 prompt tokens for a
 * request o200k counts at about 14,100, so at hard 16,000 the real agents compact there and an o200k
 * count would not. agent-compact reads that usage in the replay, so these peers do too, the same
 * way: anchored to the recorded usage while their history is still the recorded one, then counting
 * with the ratio learned from it. LangChain's middleware counts approximately, without usage, and
 * keeps the replay's count.
 */
import { createAnchoredCounter } from 'agent-compact/counters';
import type { SentRequest } from '../prompt-cache.js';
import type { PeerName, ReplayStrategy } from '../replay-strategy.js';
import type { PeerOptions } from './_peer-tools.js';

/** The peers whose agents decide on the provider's reported usage. */
export const usageReadingPeers: ReadonlySet<PeerName> = new Set([
  'claude-code',
  'codex',
  'opencode',
  'anthropic-context-editing',
]);

/** The peer `create` makes, its triggers reading the provider's count (see the module comment). */
export function readingProviderUsage(
  create: (options: PeerOptions) => ReplayStrategy,
  options: PeerOptions,
): ReplayStrategy {
  const anchored = createAnchoredCounter({ counter: options.tokens.counter });
  const strategy = create({
    ...options,
    size: ({ messages, system }) => anchored.count(messages, system),
  });
  let sent: SentRequest | undefined;
  return {
    name: strategy.name,
    thresholds: strategy.thresholds,
    async step(messages, context) {
      // The replay gives usage only while the peer sent the recorded history unchanged.
      if (sent && context.usage) anchored.observe(context.usage, sent.messages, sent.system);
      const step = await strategy.step(messages, context);
      sent = { system: context.system, messages: step.messages };
      return step;
    },
  };
}
