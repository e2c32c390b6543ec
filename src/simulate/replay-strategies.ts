/**
 * The strategies `simulate` replays side by side: `none` (send everything), `seed` (the port of the
 * seed's sketch), `agent-compact` (this library's compactor) and the peers — the policies of
 * Claude Code, Codex, opencode, Anthropic's context editing and LangChain's middleware, each in
 * `strategies/` with its sources cited.
 */
import { createRequestTokenCounter } from './prompt-cache.js';
import type { PeerName, ReplayStrategy, ReplayStrategyOptions, StrategyName } from './replay-strategy.js';
import { createSeedStrategy } from './seed-strategy.js';
import type { PeerOptions } from './strategies/_peer-tools.js';
import { createActualStrategy } from './strategies/actual.js';
import { createAgentCompactStrategy } from './strategies/agent-compact.js';
import { createAnthropicContextEditingStrategy } from './strategies/anthropic-context-editing.js';
import { createClaudeCodeStrategy } from './strategies/claude-code.js';
import { createCodexStrategy } from './strategies/codex.js';
import { createLangchainStrategy } from './strategies/langchain.js';
import { createOpencodeStrategy } from './strategies/opencode.js';
import { readingProviderUsage, usageReadingPeers } from './strategies/provider-usage.js';

/** The peers, in report order. */
export const peerNames: readonly PeerName[] = [
  'claude-code',
  'codex',
  'opencode',
  'anthropic-context-editing',
  'langchain',
];

/** Every strategy, in report order. */
export const strategyNames: readonly StrategyName[] = [
  'none',
  'seed',
  'agent-compact',
  'actual',
  ...peerNames,
];

/**
 * A fresh strategy for one transcript.
 *
 * Recorded provider usage belongs to the uncompacted history, so the replay gives it only while a
 * strategy's requests are still the recorded ones (no layer has changed anything yet); after the
 * first change `agent-compact` counts with what it learned from it. The peers whose agents read the provider's
 * usage (Claude Code, Codex, opencode, Anthropic's context editing) are anchored the same way
 * (`strategies/provider-usage.ts`); LangChain's middleware and `seed` never read usage, and `none`
 * needs no counting at all.
 */
export function createReplayStrategy(name: StrategyName, options: ReplayStrategyOptions): ReplayStrategy {
  switch (name) {
    case 'none':
      return {
        name,
        thresholds: undefined,
        async step(messages) {
          return { messages: [...messages], layer: 'none' };
        },
      };
    case 'seed': {
      const seed = createSeedStrategy({
        summarizer: options.summarizer,
        ...(options.mid === undefined ? {} : { midThreshold: options.mid }),
        ...(options.hard === undefined ? {} : { hardThreshold: options.hard }),
      });
      return {
        name,
        thresholds: seed.thresholds,
        async step(messages, { system }) {
          const { messages: compacted, layer } = await seed.maybeCompact(
            messages,
            system === undefined ? {} : { system },
          );
          return { messages: compacted, layer };
        },
      };
    }
    case 'agent-compact':
      return createAgentCompactStrategy(options);
    case 'actual':
      return createActualStrategy(options.compactions);
    case 'claude-code':
      return peer(name, createClaudeCodeStrategy, options);
    case 'codex':
      return peer(name, createCodexStrategy, options);
    case 'opencode':
      return peer(name, createOpencodeStrategy, options);
    case 'anthropic-context-editing':
      return peer(name, createAnthropicContextEditingStrategy, options);
    case 'langchain':
      return peer(name, createLangchainStrategy, options);
    default: {
      const unreachable: never = name;
      throw new Error(`unknown strategy ${String(unreachable)}`);
    }
  }
}

/** A peer, reading the provider's usage as its agent does (`strategies/provider-usage.ts`). */
function peer(
  name: PeerName,
  create: (options: PeerOptions) => ReplayStrategy,
  options: ReplayStrategyOptions,
): ReplayStrategy {
  return usageReadingPeers.has(name)
    ? readingProviderUsage(create, peerOptions(options))
    : create(peerOptions(options));
}

function peerOptions({ mid, hard, summarizer, counter, tokens }: ReplayStrategyOptions): PeerOptions {
  return {
    summarizer,
    tokens: tokens ?? createRequestTokenCounter(counter),
    ...(mid === undefined ? {} : { mid }),
    ...(hard === undefined ? {} : { hard }),
  };
}
