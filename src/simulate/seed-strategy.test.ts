import { describe, expect, it } from 'vitest';
import type { Message, ToolResultBlock } from '../core/model/messages.js';
import { createExtractiveSummaryModel } from '../core/summary/extractive-summary.js';
import type { SummaryModel, SummaryRequest } from '../core/summary/summary-model.js';
import {
  createSeedStrategy,
  firstSentence,
  seedAcknowledgement,
  seedCountTokens,
  seedMicroCompact,
  seedMidCompact,
  seedSummaryPrompt,
} from './seed-strategy.js';

/** A task message and `turns` tool turns: assistant read_file(path i) → user tool_result. */
function toolSession(turns: number, resultText = (index: number) => `contents of file ${index}`): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'Fix the failing test.' }];
  for (let index = 0; index < turns; index++) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `I will read file ${index}. Then I decide.` },
        {
          type: 'tool_use',
          id: `toolu_${index}`,
          name: index % 2 === 0 ? 'read_file' : 'bash',
          input: { path: `f${index}` },
        },
      ],
    });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `toolu_${index}`, content: resultText(index), is_error: false },
      ],
    });
  }
  return messages;
}

function resultOf(message: Message | undefined): ToolResultBlock {
  if (!message || typeof message.content === 'string') throw new Error('no block content');
  return message.content[0] as ToolResultBlock;
}

describe('seedCountTokens', () => {
  it('is the JSON length divided by 4, rounded down', () => {
    const messages: Message[] = [{ role: 'user', content: 'hello' }];
    const json = JSON.stringify(messages);
    expect(seedCountTokens(messages)).toBe(Math.floor(json.length / 4));
  });
});

describe('seedMicroCompact', () => {
  it('replaces tool results of user messages older than 6 messages with the sketch placeholder', () => {
    const messages = toolSession(5); // 11 messages
    const compacted = seedMicroCompact(messages);
    // age = 11 - index; the user tool-result messages are at indexes 2, 4, 6, 8, 10 → ages 9, 7, 5, 3, 1.
    expect(resultOf(compacted[2])).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_0',
      content: '[Previous: used read_file]',
    });
    expect(resultOf(compacted[4])).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: '[Previous: used bash]',
    });
    // age 5 is not above 6: stays whole, same object.
    expect(compacted[6]).toBe(messages[6]);
    expect(resultOf(compacted[6]).content).toBe('contents of file 2');
  });

  it.each([
    // toolSession(4) has 9 messages with tool results at indexes 2, 4, 6, 8; one more message shifts ages.
    { extra: 0, index: 2, age: 7, replaced: true },
    { extra: 1, index: 4, age: 6, replaced: false },
    { extra: 1, index: 2, age: 8, replaced: true },
    { extra: 0, index: 4, age: 5, replaced: false },
  ])('a tool-result message of age $age is replaced: $replaced', ({ extra, index, age, replaced }) => {
    const messages = toolSession(4);
    if (extra) messages.push({ role: 'assistant', content: 'Done.' });
    expect(messages.length - index).toBe(age);
    const content = resultOf(seedMicroCompact(messages)[index]).content;
    expect(content === '[Previous: used read_file]' || content === '[Previous: used bash]').toBe(replaced);
  });

  it('uses "tool" when no tool_use names the result, and never changes its input', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'lost', content: 'x' }] },
      ...toolSession(3).slice(1),
    ];
    const before = structuredClone(messages);
    const compacted = seedMicroCompact(messages);
    expect(resultOf(compacted[0]).content).toBe('[Previous: used tool]');
    expect(messages).toEqual(before);
  });

  it('leaves string user content alone whatever its age', () => {
    const messages = toolSession(5);
    expect(seedMicroCompact(messages)[0]).toBe(messages[0]);
  });
});

describe('seedMidCompact', () => {
  it('keeps the last 5 tool results whole and cuts older assistant text to its first sentence', () => {
    const messages = toolSession(8);
    const compacted = seedMidCompact(messages);
    const results = compacted.filter(
      (message) => message.role === 'user' && typeof message.content !== 'string',
    );
    expect(results.map((message) => resultOf(message).content)).toEqual([
      '[Previous: used read_file]',
      '[Previous: used bash]',
      '[Previous: used read_file]',
      'contents of file 3',
      'contents of file 4',
      'contents of file 5',
      'contents of file 6',
      'contents of file 7',
    ]);
    // The assistant turn that asked for the oldest kept result (index 3 → message 7) stays whole.
    expect(compacted[7]).toBe(messages[7]);
    const older = compacted[5];
    if (!older || typeof older.content === 'string') throw new Error('expected blocks');
    expect(older.content[0]).toEqual({ type: 'text', text: 'I will read file 2. …' });
    expect(older.content[1]).toBe((messages[5]!.content as unknown[])[1]);
    expect(compacted[0]).toBe(messages[0]);
  });
});

describe('firstSentence', () => {
  it.each([
    ['One. Two.', 'One. …'],
    ['No stop at all', 'No stop at all'],
    ['Only one.', 'Only one.'],
    [`${'a'.repeat(300)}.`, `${'a'.repeat(200)}…`],
  ])('%j → %j', (text, expected) => {
    expect(firstSentence(text)).toBe(expected);
  });
});

describe('createSeedStrategy', () => {
  const summarizer = createExtractiveSummaryModel();

  it('uses the sketch thresholds 50,000 and 80,000 by default', () => {
    expect(createSeedStrategy({ summarizer }).thresholds).toEqual({ mid: 50_000, hard: 80_000 });
  });

  it('chooses the layer on the count of the incoming messages: micro, mid, hard', async () => {
    const messages = toolSession(8, () => 'x'.repeat(400));
    const tokens = seedCountTokens(messages);
    const under = createSeedStrategy({ summarizer, midThreshold: tokens, hardThreshold: tokens + 1 });
    expect((await under.maybeCompact(messages)).layer).toBe('micro');
    const mid = createSeedStrategy({ summarizer, midThreshold: tokens - 1, hardThreshold: tokens });
    expect((await mid.maybeCompact(messages)).layer).toBe('mid');
    const hard = createSeedStrategy({ summarizer, midThreshold: tokens - 2, hardThreshold: tokens - 1 });
    const result = await hard.maybeCompact(messages);
    expect(result.layer).toBe('hard');
    expect(result.messages).toHaveLength(2);
    expect(result.messages[0]!.role).toBe('user');
    expect(result.messages[0]!.content).toMatch(/^<context_summary>\n[\s\S]+\n<\/context_summary>$/);
    expect(result.messages[1]).toEqual({ role: 'assistant', content: seedAcknowledgement });
  });

  it('reports none when micro has nothing new to replace', async () => {
    const seed = createSeedStrategy({ summarizer });
    const first = await seed.maybeCompact(toolSession(5));
    expect(first.layer).toBe('micro');
    const second = await seed.maybeCompact(first.messages);
    expect(second.layer).toBe('none');
    expect(await seed.maybeCompact(toolSession(2))).toMatchObject({ layer: 'none' });
  });

  it('sends the whole history plus the sketch prompt and the system prompt to the summary model', async () => {
    const requests: SummaryRequest[] = [];
    const recording: SummaryModel = {
      specificationVersion: 'v1',
      provider: 'test',
      modelId: 'test',
      async summarize(request) {
        requests.push(request);
        return { text: 'dense summary' };
      },
    };
    const messages = toolSession(3);
    const seed = createSeedStrategy({ summarizer: recording, midThreshold: 0, hardThreshold: 0 });
    const result = await seed.maybeCompact(messages, { system: 'You are a coding agent.' });
    expect(requests).toEqual([
      {
        system: 'You are a coding agent.',
        messages: [...messages, { role: 'user', content: seedSummaryPrompt }],
        maxOutputTokens: 2000,
      },
    ]);
    expect(result.messages[0]).toEqual({
      role: 'user',
      content: '<context_summary>\ndense summary\n</context_summary>',
    });
  });
});
