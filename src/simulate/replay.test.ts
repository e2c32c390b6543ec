import { describe, expect, it } from 'vitest';
import { validateMessages } from '../core/conversation/validate.js';
import type { Message } from '../core/model/messages.js';
import { createExtractiveSummaryModel } from '../core/summary/extractive-summary.js';
import { countMessageTokens, countSystemTokens } from '../core/tokens/message-tokens.js';
import { defaultPriceTable } from '../proxy/price-table.js';
import { createRequestTokenCounter } from './prompt-cache.js';
import { type ReplayTranscript, replayTranscript } from './replay.js';
import { bashTurn, characters } from './replay.test-utils.js';
import { createReplayStrategy } from './replay-strategies.js';
import type { ReplayStrategy } from './replay-strategy.js';

const summarizer = createExtractiveSummaryModel();

function toolTurns(count: number, output = (index: number) => `output of step ${index}`): ReplayTranscript {
  const messages: Message[] = [{ role: 'user', content: 'Fix the build.' }];
  for (let index = 0; index < count; index++) {
    messages.push(...bashTurn(index, output(index)));
  }
  messages.push({ role: 'assistant', content: 'Done.' });
  return { system: 'You are an agent.', messages };
}

function replay(transcript: ReplayTranscript, strategy: ReplayStrategy) {
  return replayTranscript(transcript, {
    strategy,
    tokens: createRequestTokenCounter(characters),
    prices: defaultPriceTable,
  });
}

describe('replayTranscript with none', () => {
  it('sends one request per assistant turn and reuses the whole previous request each time', async () => {
    const transcript = toolTurns(3);
    const { summary, turns } = await replay(
      transcript,
      createReplayStrategy('none', { summarizer, counter: characters }),
    );
    expect(summary.turns).toBe(4);
    expect(summary.prefixRewrites).toBe(0);
    expect(summary.retention).toBe(1);
    const system = countSystemTokens(transcript.system, characters);
    const message = (index: number) => countMessageTokens(transcript.messages[index]!, characters);
    // Request k holds the system prompt and messages 0 .. 2k; it reuses request k-1 (messages 0 .. 2k-2).
    const sizes = [0, 1, 2, 3].map(
      (k) => system + transcript.messages.slice(0, 2 * k + 1).reduce((sum, _, i) => sum + message(i), 0),
    );
    expect(turns.map((turn) => turn.inputTokens)).toEqual(sizes);
    expect(turns.map((turn) => turn.reusedTokens)).toEqual([0, sizes[0], sizes[1], sizes[2]]);
    expect(summary.peakTokens).toBe(sizes[3]);
    const billed = sizes.reduce((sum, size, k) => {
      const reused = k === 0 ? 0 : sizes[k - 1]!;
      return sum + reused * 0.1 + (size - reused) * 1.25;
    }, 0);
    expect(summary.billedInputTokens).toBeCloseTo(billed);
  });

  it('takes output tokens from recorded usage and counts the reply where there is none', async () => {
    const transcript = { ...toolTurns(1), usage: [{ input_tokens: 10, output_tokens: 77 }, undefined] };
    const { turns } = await replay(
      transcript,
      createReplayStrategy('none', { summarizer, counter: characters }),
    );
    expect(turns[0]!.outputTokens).toBe(77);
    expect(turns[1]!.outputTokens).toBe(
      countMessageTokens({ role: 'assistant', content: 'Done.' }, characters),
    );
  });
});

describe('recorded usage', () => {
  it("reaches the strategies only for requests sent before the recording agent's own compaction", async () => {
    const transcript = toolTurns(4);
    const assistants = transcript.messages.flatMap((message, index) =>
      message.role === 'assistant' ? [index] : [],
    );
    const usage = assistants.map((_, turn) => ({ input_tokens: 1000 + turn, output_tokens: 5 }));
    const seen: (number | undefined)[] = [];
    const reading: ReplayStrategy = {
      name: 'seed',
      thresholds: undefined,
      async step(messages, context) {
        seen.push(context.usage?.input_tokens);
        return { messages: [...messages], layer: 'none' };
      },
    };
    // The agent compacted just before its third reply: the third request held its compacted context.
    await replay({ ...transcript, usage, compactedAt: assistants[2]! }, reading);
    expect(seen).toEqual([undefined, 1000, 1001, undefined, undefined]);
    seen.length = 0;
    await replay({ ...transcript, usage }, reading);
    expect(seen).toEqual([undefined, 1000, 1001, 1002, 1003]);
  });
});

describe('recorded usage after a strategy changed its history', () => {
  it('stops: the usage belongs to the recorded requests, not the strategy’s own', async () => {
    const transcript = toolTurns(4);
    const usage = Array.from({ length: 5 }, (_, turn) => ({ input_tokens: 1000 + turn, output_tokens: 5 }));
    const seen: (number | undefined)[] = [];
    let step = 0;
    const dropping: ReplayStrategy = {
      name: 'seed',
      thresholds: undefined,
      async step(messages, context) {
        seen.push(context.usage?.input_tokens);
        // The third request drops the oldest message, as a compaction would.
        return { messages: ++step === 3 ? messages.slice(1) : [...messages], layer: 'none' };
      },
    };
    await replay({ ...transcript, usage }, dropping);
    expect(seen).toEqual([undefined, 1000, 1001, undefined, undefined]);
  });
});

describe('replayTranscript carries the strategy history forward', () => {
  it('hands each step its own previous output plus the recorded reply and the new messages', async () => {
    const seen: Message[][] = [];
    const dropping: ReplayStrategy = {
      name: 'seed',
      thresholds: undefined,
      async step(messages) {
        seen.push([...messages]);
        // Keeps only the last two messages, as a stand-in for a compaction.
        return {
          messages: messages.slice(-2).length === 2 ? messages.slice(-2) : [...messages],
          layer: 'hard',
        };
      },
    };
    const transcript = toolTurns(2);
    await replay(transcript, dropping);
    const [task, call0, result0, call1, result1] = transcript.messages;
    expect(seen[0]).toEqual([task]);
    expect(seen[1]).toEqual([task, call0, result0]);
    // The step kept [call0, result0]; the recorded reply call1 and its result follow.
    expect(seen[2]).toEqual([call0, result0, call1, result1]);
  });
});

describe('replayTranscript with seed', () => {
  it('rewrites the prefix whenever micro replaces a result, and loses the facts the placeholder drops', async () => {
    const transcript = toolTurns(6, (index) =>
      index === 1 ? 'Compiling…\nerror: missing semicolon in main.c\nExit code: 2' : `ok ${index}`,
    );
    const { summary, turns } = await replay(
      transcript,
      createReplayStrategy('seed', { summarizer, counter: characters }),
    );
    // Request k holds messages 0 .. 2k; the first result (index 2) is older than 6 messages from
    // k = 4 on, and each later request masks one more result.
    expect(turns.map((turn) => turn.layer)).toEqual([
      'none',
      'none',
      'none',
      'none',
      'micro',
      'micro',
      'micro',
    ]);
    expect(turns.map((turn) => turn.prefixRewrite)).toEqual([false, false, false, false, true, true, true]);
    expect(summary.prefixRewrites).toBe(3);
    expect(summary.compactions).toEqual({ micro: 3, mid: 0, hard: 0 });
    // The fifth of seven requests was the first a layer changed.
    expect(summary.firstCompactionTurn).toBe(5);
    // In the last request the results of steps 0-2 are placeholders. Their commands stay visible in
    // the tool_use inputs, but step 1's exit code and error line are gone.
    expect(summary.compactedCalls).toBe(3);
    expect(summary.compactedFacts).toBe(3 + 2);
    expect(summary.compactedFactsVisible).toBe(3);
    expect(summary.retentionOfCompacted).toBeCloseTo(3 / 5);
    // One denominator: the 3 calls kept whole show their 3 facts too.
    expect(summary.facts).toBe(3 + 2 + 3);
    expect(summary.factsVisible).toBe(3 + 3);
    expect(summary.retention).toBeCloseTo(6 / 8);
  });
});

describe('replayTranscript with agent-compact', () => {
  it('sends valid conversations and compacts at low thresholds', async () => {
    const transcript = toolTurns(30, (index) => `line ${index}\n`.repeat(200));
    const { summary } = await replayTranscript(transcript, {
      strategy: createReplayStrategy('agent-compact', {
        summarizer,
        counter: characters,
        mid: 20_000,
        hard: 40_000,
      }),
      tokens: createRequestTokenCounter(characters),
      prices: defaultPriceTable,
    });
    expect(summary.turns).toBe(31);
    expect(summary.compactions.micro + summary.compactions.mid + summary.compactions.hard).toBeGreaterThan(0);
    expect(summary.peakTokens).toBeLessThan(45_000);
  });

  it('every request it sends passes validation', async () => {
    const transcript = toolTurns(30, (index) => `line ${index}\n`.repeat(200));
    const sent: Message[][] = [];
    const inner = createReplayStrategy('agent-compact', {
      summarizer,
      counter: characters,
      mid: 8_000,
      hard: 16_000,
    });
    const recording: ReplayStrategy = {
      ...inner,
      async step(messages, context) {
        const step = await inner.step(messages, context);
        sent.push(step.messages);
        return step;
      },
    };
    await replay(transcript, recording);
    for (const messages of sent) expect(validateMessages(messages)).toEqual([]);
  });
});
