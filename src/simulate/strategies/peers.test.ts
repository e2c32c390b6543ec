import { describe, expect, it } from 'vitest';
import { validateMessages } from '../../core/conversation/validate.js';
import type { Message, ToolResultBlock } from '../../core/model/messages.js';
import { createExtractiveSummaryModel } from '../../core/summary/extractive-summary.js';
import { defaultPriceTable } from '../../proxy/price-table.js';
import { createMeteredSummaryModel } from '../metered-summary-model.js';
import { createRequestTokenCounter } from '../prompt-cache.js';
import { type ReplayTranscript, replayTranscript } from '../replay.js';
import { bashTurn, characters } from '../replay.test-utils.js';
import { createReplayStrategy, peerNames } from '../replay-strategies.js';
import type { PeerName, StepContext } from '../replay-strategy.js';
import { OLD_TOOL_RESULT_CLEARED, scaledBudget } from './_peer-tools.js';
import { LANGCHAIN_CLEARED_PLACEHOLDER } from './langchain.js';

/** A user request, then `count` tool turns whose results are `size` characters; more user requests every `userEvery` turns. */
function session(count: number, { size = 400, userEvery = 0 } = {}): ReplayTranscript {
  const messages: Message[] = [{ role: 'user', content: 'Fix the failing build of the shop service.' }];
  for (let index = 0; index < count; index++) {
    messages.push(...bashTurn(index, `step ${index}: `.padEnd(size, 'x')));
    if (userEvery > 0 && index % userEvery === userEvery - 1) {
      messages.push(
        { role: 'assistant', content: `Finished part ${index}.` },
        { role: 'user', content: `Now do part ${index + 1}.` },
      );
    }
  }
  messages.push({ role: 'assistant', content: 'Done.' });
  return { system: 'You are a coding agent.', messages };
}

const context: StepContext = { time: 0, cacheTtlSeconds: 300 };

function peer(name: PeerName, mid: number, hard: number) {
  const summarizer = createMeteredSummaryModel(createExtractiveSummaryModel());
  return { summarizer, strategy: createReplayStrategy(name, { summarizer, counter: characters, mid, hard }) };
}

function results(messages: readonly Message[]): string[] {
  return messages.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content
          .filter((block) => block.type === 'tool_result')
          .map((block) => String((block as ToolResultBlock).content)),
  );
}

describe.each(peerNames)('%s', (name) => {
  it('sends valid conversations, stays near the hard threshold and bills its summaries', async () => {
    const { summarizer, strategy } = peer(name, 3000, 6000);
    const sent: Message[][] = [];
    const recording = {
      ...strategy,
      step: async (messages: readonly Message[], step: StepContext) => {
        const result = await strategy.step(messages, step);
        sent.push(result.messages);
        return result;
      },
    };
    const { summary } = await replayTranscript(session(40), {
      strategy: recording,
      tokens: createRequestTokenCounter(characters),
      prices: defaultPriceTable,
      summaryCalls: summarizer,
    });
    for (const messages of sent) expect(validateMessages(messages)).toEqual([]);
    expect(summary.compactions.hard).toBeGreaterThan(0);
    expect(summary.summaryCalls).toBe(summary.compactions.hard);
    expect(summary.summaryCost).toBeGreaterThan(0);
    // Under hard plus one turn (the check runs before the turn is added).
    expect(summary.peakTokens).toBeLessThan(6000 + 1000);
  });
});

describe('the size a peer compacts at', () => {
  async function hardCompactions(name: PeerName, usage: ReplayTranscript['usage']): Promise<number> {
    const { summarizer, strategy } = peer(name, 5000, 6000);
    const transcript = { ...session(8), ...(usage === undefined ? {} : { usage }) };
    const { summary } = await replayTranscript(transcript, {
      strategy,
      tokens: createRequestTokenCounter(characters),
      prices: defaultPriceTable,
      summaryCalls: summarizer,
    });
    return summary.compactions.hard;
  }
  // The provider reported 7,000 prompt tokens for each request the local count puts near 4,000.
  const reported = Array.from({ length: 9 }, () => ({ input_tokens: 7000, output_tokens: 10 }));

  it.each(['claude-code', 'codex', 'opencode', 'anthropic-context-editing'] as const)(
    '%s reads the provider’s usage, as its agent does',
    async (name) => {
      expect(await hardCompactions(name, undefined)).toBe(0);
      expect(await hardCompactions(name, reported)).toBeGreaterThan(0);
    },
  );

  it('langchain counts on its own (its middleware reads no usage)', async () => {
    expect(await hardCompactions('langchain', reported)).toBe(0);
  });
});

describe('the peers’ own rules', () => {
  it('claude-code: microcompact only after the cache expired, keeping the 5 newest results', async () => {
    const { strategy } = peer('claude-code', 50_000, 80_000);
    const history = session(8).messages.slice(0, -1);
    const warm = await strategy.step(history, { ...context, secondsSincePrevious: 60 });
    expect(warm.layer).toBe('none');
    const cold = await strategy.step(history, { ...context, secondsSincePrevious: 301 });
    expect(cold.layer).toBe('micro');
    const kept = results(cold.messages);
    expect(kept.slice(0, 3)).toEqual(Array(3).fill(OLD_TOOL_RESULT_CLEARED));
    expect(kept.slice(3).every((text) => text.startsWith('step'))).toBe(true);
  });

  it('claude-code: keeps at least 10k (scaled) recent tokens after the summary', async () => {
    const hard = 20_000;
    const { strategy } = peer('claude-code', 10_000, hard);
    const history = session(60, { size: 400 }).messages.slice(0, -1);
    const step = await strategy.step(history, context);
    expect(step.layer).toBe('hard');
    const keptResults = results(step.messages).length;
    // 10k × 20k/200k = 1,000 tokens at least, 4,000 at most, of ~420-token turns: 3 to 9 turns.
    expect(keptResults).toBeGreaterThanOrEqual(Math.ceil(scaledBudget(10_000, hard) / 420));
    expect(keptResults).toBeLessThanOrEqual(Math.ceil(scaledBudget(40_000, hard) / 420));
  });

  it('codex: keeps the recent user messages and the summary, nothing else before the turn', async () => {
    const { strategy } = peer('codex', 3000, 6000);
    const history = session(30, { userEvery: 5 }).messages.slice(0, -1);
    const step = await strategy.step(history, context);
    expect(step.layer).toBe('hard');
    const [rebuilt, ...turn] = step.messages;
    const texts = (rebuilt!.content as Array<{ text: string }>).map((block) => block.text);
    expect(texts[0]).toBe('Fix the failing build of the shop service.');
    expect(texts).toContain('Now do part 25.');
    expect(texts.at(-1)).toMatch(/^Another language model started/);
    expect(turn).toHaveLength(2);
  });

  it('opencode: never prunes within the last 2 user turns; prunes older output beyond the protected tokens', async () => {
    // Budgets scale by 100k/200k: 20,000 protected, 10,000 at least to prune.
    const oneTurn = peer('opencode', 50_000, 100_000).strategy;
    const single = await oneTurn.step(session(80, { size: 1000 }).messages.slice(0, -1), context);
    expect(single.layer).toBe('none');
    const manyTurns = peer('opencode', 50_000, 100_000).strategy;
    const pruned = await manyTurns.step(
      session(80, { size: 1000, userEvery: 20 }).messages.slice(0, -1),
      context,
    );
    expect(pruned.layer).toBe('micro');
    const texts = results(pruned.messages);
    // The last 2 user turns (the requests after results 59 and 79) hold 20 results; of the 60 before
    // them the newest 20,000 tokens (about 20 results) are protected and the 40 or so older cleared.
    const cleared = texts.filter((text) => text === OLD_TOOL_RESULT_CLEARED).length;
    expect(cleared).toBeGreaterThanOrEqual(35);
    expect(cleared).toBeLessThanOrEqual(41);
    expect(texts.slice(-40).every((text) => text !== OLD_TOOL_RESULT_CLEARED)).toBe(true);
  });

  it('langchain: clears all but 3 results in each request over mid, from the full state each time', async () => {
    const { strategy } = peer('langchain', 2000, 50_000);
    const history = session(10).messages.slice(0, -1);
    const first = await strategy.step(history, context);
    expect(first.layer).toBe('micro');
    expect(results(first.messages).filter((text) => text === LANGCHAIN_CLEARED_PLACEHOLDER)).toHaveLength(7);
    // The next request starts from what was sent; the originals come back and are cleared afresh.
    const next = await strategy.step(
      [...first.messages, { role: 'assistant', content: 'More.' }, { role: 'user', content: 'Go on.' }],
      context,
    );
    expect(next.layer).toBe('none');
    expect(results(next.messages).filter((text) => text === LANGCHAIN_CLEARED_PLACEHOLDER)).toHaveLength(7);
  });
});
