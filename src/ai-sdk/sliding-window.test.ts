import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { CompactionEvent } from '../core/events.js';
import { createCompactionMiddleware } from './compaction-middleware.js';

/** A text answer without usage, so the compactor counts each prompt itself. */
function answer(text: string): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    },
    warnings: [],
  };
}

describe('createCompactionMiddleware with an app that sends only its last N messages', () => {
  it('an app that sends only its last N messages keeps its conversation: a summary as the history grows, not one a call', async () => {
    const window = 25;
    const turns = 30;
    const events: CompactionEvent[] = [];
    const middleware = createCompactionMiddleware({
      thresholds: { mid: 3000, hard: 5000 },
      onEvent: (event) => events.push(event),
    });
    let answers = 0;
    const model = new MockLanguageModelV3({
      // Without usage, so the compactor counts each prompt itself.
      doGenerate: async () => ({ ...answer(`Log ${answers++} fails in compute.`) }),
    });
    const chat = wrapLanguageModel({ model, middleware });
    const history: ModelMessage[] = [];
    const log = (turn: number) =>
      `Here is log ${turn}:\n${`[${turn}] error at compute(input, options) line ${turn}: failed\n`.repeat(35)}`;
    for (let turn = 0; turn < turns; turn++) {
      history.push({ role: 'user', content: log(turn) });
      // Once the history is longer than the window, every call opens with another message.
      const result = await generateText({
        model: chat,
        system: 'You read logs.',
        messages: history.slice(-window),
      });
      history.push(...result.response.messages);
    }
    const hardRuns = events.filter((event) => event.type === 'compaction-end' && event.layer === 'hard');
    // Over hard from the 9th call on, the window slides from the 13th: a summary each 4 calls or so.
    expect(hardRuns.length).toBeGreaterThan(1);
    expect(hardRuns.length).toBeLessThan(turns / 3);
    for (const [index, call] of model.doGenerateCalls.entries()) {
      // Never more than the app sent (nothing it dropped comes back), and its newest message last.
      expect(call.prompt.length).toBeLessThanOrEqual(window + 1);
      expect(JSON.stringify(call.prompt.at(-1))).toContain(`Here is log ${index}:`);
    }
    expect(JSON.stringify(model.doGenerateCalls.at(-1)?.prompt)).toContain('<context_summary');
  });

  it('sends a sliding window under the thresholds as the app gave it', async () => {
    const middleware = createCompactionMiddleware({});
    const model = new MockLanguageModelV3({ doGenerate: async () => answer('ok') });
    const chat = wrapLanguageModel({ model, middleware });
    const history: ModelMessage[] = [];
    for (let turn = 0; turn < 8; turn++) {
      history.push({ role: 'user', content: `question ${turn}` });
      const result = await generateText({ model: chat, messages: history.slice(-5) });
      history.push(...result.response.messages);
    }
    const sent = model.doGenerateCalls.map((call) =>
      call.prompt.map((message) => JSON.stringify(message.content).match(/question \d|ok/)?.[0]),
    );
    expect(sent.at(-1)).toEqual(['question 5', 'ok', 'question 6', 'ok', 'question 7']);
    expect(sent.at(-2)).toEqual(['question 4', 'ok', 'question 5', 'ok', 'question 6']);
  });
});
