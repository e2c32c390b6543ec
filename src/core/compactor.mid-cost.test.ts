// Issue 31: mid fired on every call once the history sat above mid after condensing, each time
// rewriting the prompt cache, and cost more than sending everything.
import { describe, expect, it } from 'vitest';
import { createCompactor } from './compactor.js';
import { agentSession, toolTurn } from './conversation/session-builder.test-utils.js';
import type { Message, ProviderUsage } from './model/messages.js';
import { createHeuristicCounter } from './tokens/heuristic-counter.js';
import { countMessageTokens } from './tokens/message-tokens.js';

const counter = createHeuristicCounter();
/** What an agent's own system prompt and tools add to every request (Claude Code's: about 40k). */
const HIDDEN_TOKENS = 40_000;

/** The layer of each of `turns` calls of an agent loop at mid 8k / hard 16k, usage reported each time. */
async function layersOfLoop(turns: number): Promise<string[]> {
  const compactor = createCompactor({
    thresholds: { mid: 8_000, hard: 16_000 },
    counter,
  });
  let messages: Message[] = agentSession(4, { lines: 30 });
  let usage: ProviderUsage | undefined;
  const layers: string[] = [];
  for (let turn = 5; turn < 5 + turns; turn++) {
    const outcome = await compactor.maybeCompact(messages, usage ? { usage } : {});
    layers.push(outcome.layer);
    const local = outcome.messages.reduce((sum, message) => sum + countMessageTokens(message, counter), 0);
    usage = { input_tokens: HIDDEN_TOKENS + local };
    messages = [...outcome.messages, ...toolTurn(turn, { lines: 30 })];
  }
  return layers;
}

describe('mid pays for the prompt cache it rewrites', () => {
  it('does not fire on consecutive calls after condensing when the history stays over mid', async () => {
    const layers = await layersOfLoop(22);
    // Mid still condenses: the history would grow without bound otherwise.
    expect(layers.filter((layer) => layer === 'mid').length).toBeGreaterThan(0);
    const consecutive = layers.filter((layer, index) => layer === 'mid' && layers[index - 1] === 'mid');
    expect(consecutive).toEqual([]);
  });

  it('rewrites the cache on at most a quarter of the calls (before: mid on 14 of 22)', async () => {
    const layers = await layersOfLoop(22);
    const rewrites = layers.filter((layer) => layer !== 'none').length;
    expect(rewrites).toBeLessThanOrEqual(22 / 4);
  });
});
