import { generateObject, generateText, jsonSchema, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { CompactionEvent } from '../core/events.js';
import { textWithoutUsage as answer } from './chat-completions-model.test-utils.js';
import { createCompactionMiddleware } from './compaction-middleware.js';

/**
 * How apps call a wrapped model between turns of one chat without a conversation id, and whether
 * the chat keeps its compacted state: a summary written as the history grows, not on every call.
 */

/** A middleware with thresholds a few pasted logs pass, and the hard summaries it wrote so far. */
function lowThresholds() {
  const events: CompactionEvent[] = [];
  const middleware = createCompactionMiddleware({
    thresholds: { mid: 3000, hard: 5000 },
    onEvent: (event) => events.push(event),
  });
  const hardRuns = () =>
    events.filter((event) => event.type === 'compaction-end' && event.layer === 'hard').length;
  return { middleware, hardRuns };
}

describe('createCompactionMiddleware with an app that sends only its last N messages', () => {
  it('an app that sends only its last N messages keeps its conversation: a summary as the history grows, not one a call', async () => {
    const window = 25;
    const turns = 30;
    const { middleware, hardRuns } = lowThresholds();
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
    // Over hard from the 9th call on, the window slides from the 13th: a summary each 4 calls or so.
    expect(hardRuns()).toBeGreaterThan(1);
    expect(hardRuns()).toBeLessThan(turns / 3);
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

const titleSchema = jsonSchema<{ title: string }>({
  type: 'object',
  properties: { title: { type: 'string' } },
  required: ['title'],
});

/** A 20-turn chat of pasted logs; with `sideCalls`, a `generateObject` title call after each answer. */
async function chatWithLogs({ sideCalls }: { sideCalls: boolean }) {
  const { middleware, hardRuns } = lowThresholds();
  let answers = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async (options) =>
      options.responseFormat?.type === 'json'
        ? answer('{"title":"Logs"}')
        : answer(`Log ${answers++} fails.`),
  });
  const chat = wrapLanguageModel({ model, middleware });
  const history: ModelMessage[] = [];
  for (let turn = 0; turn < 20; turn++) {
    history.push({
      role: 'user',
      content: `Log ${turn}:\n${`[${turn}] compute failed at ${turn}\n`.repeat(40)}`,
    });
    const result = await generateText({ model: chat, system: 'You read logs.', messages: history });
    history.push(...result.response.messages);
    if (!sideCalls) continue;
    // The history plus a message of the side call's own, through the same wrapped model.
    await generateObject({
      model: chat,
      schema: titleSchema,
      messages: [...history, { role: 'user', content: 'Title this chat.' }],
    });
  }
  return {
    hardRuns: hardRuns(),
    prompts: model.doGenerateCalls.map((call) => JSON.stringify(call.prompt)),
  };
}

describe('createCompactionMiddleware with side calls through the same model', () => {
  it('a generateObject call after each answer leaves the chat its summary: no new one on every turn', async () => {
    const alone = await chatWithLogs({ sideCalls: false });
    const withTitles = await chatWithLogs({ sideCalls: true });
    expect(alone.hardRuns).toBeGreaterThan(0);
    expect(withTitles.hardRuns).toBe(alone.hardRuns);
    const chatPrompts = withTitles.prompts.filter((prompt) => !prompt.includes('Title this chat.'));
    const titlePrompts = withTitles.prompts.filter((prompt) => prompt.includes('Title this chat.'));
    expect(chatPrompts).toHaveLength(20);
    expect(titlePrompts).toHaveLength(20);
    // Each title call ends with its own message; the chat's last call carries the summary and its newest log.
    expect(titlePrompts.every((prompt) => prompt.endsWith('"text":"Title this chat."}]}]'))).toBe(true);
    expect(chatPrompts.at(-1)).toContain('<context_summary');
    expect(chatPrompts.at(-1)).toContain('Log 19:');
  });
});

describe('createCompactionMiddleware when the user edits their last message', () => {
  it('an edited last question continues the conversation: no summary again', async () => {
    const { middleware, hardRuns } = lowThresholds();
    const model = new MockLanguageModelV3({ doGenerate: async () => answer('It fails in compute.') });
    const chat = wrapLanguageModel({ model, middleware });
    const history: ModelMessage[] = [];
    for (let turn = 0; turn < 14; turn++) {
      history.push({
        role: 'user',
        content: `Log ${turn}:\n${`[${turn}] compute failed at ${turn}\n`.repeat(40)}`,
      });
      const result = await generateText({ model: chat, system: 'You read logs.', messages: history });
      history.push(...result.response.messages);
    }
    const hardBefore = hardRuns();
    expect(hardBefore).toBeGreaterThan(0);
    // Asked, then edited and asked again, twice: each call has the history and a different last question.
    for (const question of ['Which line fails?', 'Which line fails first?', 'Which log fails first?']) {
      await generateText({
        model: chat,
        system: 'You read logs.',
        messages: [...history, { role: 'user', content: question }],
      });
    }
    expect(hardRuns()).toBe(hardBefore);
    const last = JSON.stringify(model.doGenerateCalls.at(-1)?.prompt);
    expect(last).toContain('<context_summary');
    expect(last).toContain('Which log fails first?');
    expect(last).not.toContain('Which line fails');
  });
});
