import { describe, expect, it } from 'vitest';
import { validateMessages } from '../core/conversation/validate.js';
import type { Message } from '../core/model/messages.js';
import { createExtractiveSummaryModel } from '../core/summary/extractive-summary.js';
import { defaultPriceTable } from '../proxy/price-table.js';
import { createMeteredSummaryModel } from './metered-summary-model.js';
import { billRequest, commonPrefix, createRequestTokenCounter } from './prompt-cache.js';
import { type ReplayTranscript, replayTranscript } from './replay.js';
import { bashTurn, characters } from './replay.test-utils.js';
import { createReplayStrategy } from './replay-strategies.js';
import type { ReplayStrategy } from './replay-strategy.js';
import { callSeconds, defaultLatencyModel, requestTimes } from './timing.js';

function toolTurns(count: number): ReplayTranscript {
  const messages: Message[] = [{ role: 'user', content: 'Fix the build.' }];
  for (let index = 0; index < count; index++) {
    messages.push(...bashTurn(index, `output ${index} `.repeat(40)));
  }
  messages.push({ role: 'assistant', content: 'Done.' });
  return { system: 'You are an agent.', messages };
}

/** A strategy that summarizes everything before the last message once, on the given turn. */
function summarizeOnTurn(
  turn: number,
  summarizer: ReturnType<typeof createMeteredSummaryModel>,
  background = false,
): ReplayStrategy {
  let step = 0;
  return {
    name: 'none',
    thresholds: undefined,
    async step(messages, { system }) {
      if (step++ !== turn) return { messages: [...messages], layer: 'none' };
      const history = messages.slice(0, -2);
      const { text } = await summarizer.summarize({
        ...(system === undefined ? {} : { system }),
        messages: [...history, { role: 'user', content: 'Summarize.' }],
        maxOutputTokens: 500,
      });
      return {
        messages: [{ role: 'user', content: text }, ...messages.slice(-2)],
        layer: 'hard',
        // A strategy on its own clock reports what it waited: nothing, for a background summary.
        ...(background ? { blockedSeconds: 0 } : {}),
      };
    },
  };
}

describe('summary calls in the replay', () => {
  it('bills each call under the caching model, adds it to cost, and makes the agent wait for it', async () => {
    const transcript = toolTurns(5);
    const metered = createMeteredSummaryModel(createExtractiveSummaryModel());
    const tokens = createRequestTokenCounter(characters);
    // Record the call the strategy makes, to compute its bill by hand.
    const calls: Array<{ system: string; messages: Message[]; text: string }> = [];
    const recording = {
      ...metered,
      async summarize(request: Parameters<typeof metered.summarize>[0]) {
        const result = await metered.summarize(request);
        calls.push({ system: String(request.system), messages: request.messages, text: result.text });
        return result;
      },
    };
    const { summary, turns } = await replayTranscript(transcript, {
      strategy: summarizeOnTurn(3, recording),
      tokens,
      prices: defaultPriceTable,
      summaryCalls: metered,
    });
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    const sent = { system: call.system, messages: call.messages };
    const inputTokens = tokens.request(sent);
    const outputTokens = call.text.length;
    // Its prefix is the previous request minus its last turn: read from the cache.
    const previousRequest = { system: transcript.system, messages: transcript.messages.slice(0, 5) };
    const reused = commonPrefix(previousRequest, sent, tokens).tokens;
    expect(reused).toBeGreaterThan(0);
    const bill = billRequest({ inputTokens, reusedTokens: reused, outputTokens }, defaultPriceTable);
    expect(summary.summaryCalls).toBe(1);
    expect(summary.summaryInputTokens).toBe(inputTokens);
    expect(summary.summaryCacheReadTokens).toBe(reused);
    expect(summary.summaryOutputTokens).toBe(outputTokens);
    expect(summary.summaryCost).toBeCloseTo(bill.cost, 12);
    expect(turns[3]!.summaryCost).toBeCloseTo(bill.cost, 12);
    expect(summary.cost).toBeCloseTo(
      turns.reduce((sum, turn) => sum + turn.cost, 0),
      12,
    );
    const wait = callSeconds({ inputTokens, outputTokens }, defaultLatencyModel);
    expect(wait).toBeCloseTo(1 + inputTokens / 10_000 + outputTokens / 60, 9);
    expect(summary.blockedSeconds).toBeCloseTo(wait, 9);
    expect(summary.longestWaitSeconds).toBeCloseTo(wait, 9);
  });

  it('a summary made in the background is billed the same but blocks nothing', async () => {
    const metered = createMeteredSummaryModel(createExtractiveSummaryModel());
    const { summary } = await replayTranscript(toolTurns(5), {
      strategy: summarizeOnTurn(3, metered, true),
      tokens: createRequestTokenCounter(characters),
      prices: defaultPriceTable,
      summaryCalls: metered,
    });
    expect(summary.summaryCalls).toBe(1);
    expect(summary.summaryCost).toBeGreaterThan(0);
    expect(summary.blockedSeconds).toBe(0);
  });

  it('prices summary calls with summaryPrices when given', async () => {
    const run = async (summaryPrices = defaultPriceTable) => {
      const metered = createMeteredSummaryModel(createExtractiveSummaryModel());
      return (
        await replayTranscript(toolTurns(5), {
          strategy: summarizeOnTurn(3, metered),
          tokens: createRequestTokenCounter(characters),
          prices: defaultPriceTable,
          summaryPrices,
          summaryCalls: metered,
        })
      ).summary;
    };
    const agentPriced = await run();
    const cheap = await run({ ...defaultPriceTable, inputPerMillion: 0.3, outputPerMillion: 1.5 });
    expect(cheap.summaryCost).toBeCloseTo(agentPriced.summaryCost / 10, 12);
    expect(agentPriced.cost - cheap.cost).toBeCloseTo(agentPriced.summaryCost - cheap.summaryCost, 12);
  });
});

describe('prompt-cache lifetime', () => {
  const none = () =>
    createReplayStrategy('none', { summarizer: createExtractiveSummaryModel(), counter: characters });

  it('a request more than the TTL after the previous one reads nothing from the cache', async () => {
    const start = Date.parse('2026-01-06T09:00:00Z');
    // Requests at 0, 10, 20, 400 (gap 380 s) and 410 seconds.
    const timestamps = [0, 10, 20, 400, 410].map((seconds) => start + seconds * 1000);
    const { summary, turns } = await replayTranscript(
      { ...toolTurns(4), timestamps },
      { strategy: none(), tokens: createRequestTokenCounter(characters), prices: defaultPriceTable },
    );
    expect(turns.map((turn) => turn.cacheExpired)).toEqual([false, false, false, true, false]);
    expect(turns[3]!.reusedTokens).toBe(0);
    expect(turns[4]!.reusedTokens).toBeGreaterThan(0);
    expect(summary.cacheExpiries).toBe(1);
    expect(summary.prefixRewrites).toBe(0);
  });

  it('uses the turn duration where the transcript has no times; --cache-ttl below it expires every request', async () => {
    const tokens = createRequestTokenCounter(characters);
    const warm = await replayTranscript(toolTurns(4), {
      strategy: none(),
      tokens,
      prices: defaultPriceTable,
    });
    expect(warm.summary.cacheExpiries).toBe(0);
    const cold = await replayTranscript(toolTurns(4), {
      strategy: none(),
      tokens,
      prices: defaultPriceTable,
      clock: { cacheTtlSeconds: 5, turnSeconds: 10 },
    });
    expect(cold.summary.cacheExpiries).toBe(4);
    expect(cold.summary.cacheReadTokens).toBe(0);
    expect(cold.summary.cost).toBeGreaterThan(warm.summary.cost);
  });

  it('request times: recorded where present, else the previous plus the turn duration', () => {
    expect(requestTimes(4, undefined, 10)).toEqual([0, 10, 20, 30]);
    expect(requestTimes(4, [1000, 4000, undefined, 9000], 10)).toEqual([0, 3, 13, 13]);
  });
});

describe('agent-compact on the replay clock', () => {
  const replayAgentCompact = async (background: boolean) => {
    const metered = createMeteredSummaryModel(createExtractiveSummaryModel());
    const strategy = createReplayStrategy('agent-compact', {
      summarizer: metered,
      counter: characters,
      mid: 3000,
      hard: 6000,
      agentCompact: {
        micro: { clearAtLeast: 100_000 },
        mid: { keepToolResults: 1000 },
        hard: { background },
      },
    });
    const sent: Message[][] = [];
    const recording: ReplayStrategy = {
      ...strategy,
      step: async (messages, context) => {
        const step = await strategy.step(messages, context);
        sent.push(step.messages);
        return step;
      },
    };
    const { summary } = await replayTranscript(toolTurns(60), {
      strategy: recording,
      tokens: createRequestTokenCounter(characters),
      prices: defaultPriceTable,
      summaryCalls: metered,
    });
    return { summary, sent };
  };

  it('waits for a foreground summary its whole duration, and far less when it runs in the background', async () => {
    const foreground = await replayAgentCompact(false);
    const background = await replayAgentCompact(true);
    expect(foreground.summary.summaryCalls).toBeGreaterThan(0);
    expect(background.summary.summaryCalls).toBeGreaterThan(0);
    // Foreground: every call is waited for, start to end (about 1 s + 6,000/10,000 s + output/60).
    expect(foreground.summary.blockedSeconds).toBeGreaterThan(foreground.summary.summaryCalls * 1.5);
    expect(background.summary.blockedSeconds).toBeLessThan(foreground.summary.blockedSeconds / 2);
    for (const messages of [...foreground.sent, ...background.sent])
      expect(validateMessages(messages)).toEqual([]);
  });
});
