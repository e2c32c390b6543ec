import { describe, expect, it } from 'vitest';
import type { Message, ToolResultBlock } from '../model/messages.js';
import { toolResultTokens } from './mask.js';
import { planMid } from './mid.js';
import { contextFor, counter, rule, smallSession } from './planner.test-utils.js';

const settings = { keepToolResults: 2, keepTokens: 0, maxAssistantChars: 80, maxToolInputTokens: 40, rule };

describe('planMid', () => {
  it('keeps the last keepToolResults results, masks older ones and cuts older long text', async () => {
    const messages = smallSession(4);
    const plan = await planMid(messages, settings, counter, contextFor(messages));
    expect(plan.freedTokens).toMatchInlineSnapshot(`217`);
    expect(plan.messages.slice(1, 5)).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "Turn 1. I will check the build output and then fix what fails. ",
              "type": "text",
            },
            {
              "id": "t1",
              "input": {
                "command": "make step1",
              },
              "name": "bash",
              "type": "tool_use",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "content": "[Previous: used bash(make step1) → 12 lines, 133 tokens; recall r1]",
              "tool_use_id": "t1",
              "type": "tool_result",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "text": "Turn 2. I will check the build output and then fix what fails. […shortened; 43 tokens in full; recall r3]",
              "type": "text",
            },
            {
              "id": "t2",
              "input": {
                "command": "make step2",
              },
              "name": "bash",
              "type": "tool_use",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "content": "[Previous: used bash(make step2) → 12 lines, 133 tokens; recall r2]",
              "tool_use_id": "t2",
              "type": "tool_result",
            },
          ],
          "role": "user",
        },
      ]
    `);
    expect(plan.items.map((item) => [item.id, item.kind])).toMatchInlineSnapshot(`
      [
        [
          "r1",
          "tool-result",
        ],
        [
          "r2",
          "tool-result",
        ],
        [
          "r3",
          "assistant-text",
        ],
      ]
    `);
    expect(plan.messages.slice(5)).toEqual(messages.slice(5));
  });

  it('keeps the newest results up to keepTokens whole too, counted from the newest', async () => {
    const messages = smallSession(6);
    const masked = (plan: { messages: Message[] }) =>
      plan.messages.flatMap((message) =>
        typeof message.content === 'string'
          ? []
          : message.content.flatMap((block) =>
              block.type === 'tool_result' && JSON.stringify(block.content).includes('recall')
                ? [block.tool_use_id]
                : [],
            ),
      );
    const byCount = await planMid(messages, settings, counter, contextFor(messages));
    expect(masked(byCount)).toEqual(['t1', 't2', 't3', 't4']);
    // The newest three results fit in keepTokens: one more than the count keeps.
    const results = messages.flatMap((message) =>
      typeof message.content === 'string'
        ? []
        : message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result'),
    );
    const keepTokens = results.slice(-3).reduce((sum, result) => sum + toolResultTokens(result, counter), 0);
    const byTokens = await planMid(messages, { ...settings, keepTokens }, counter, contextFor(messages));
    expect(masked(byTokens)).toEqual(['t1', 't2', 't3']);
    const all = await planMid(messages, { ...settings, keepTokens: 100_000 }, counter, contextFor(messages));
    expect(masked(all)).toEqual([]);
  });

  it('elides large older tool inputs', async () => {
    const messages: Message[] = [
      { role: 'user', content: 'Write the file.' },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'w1',
            name: 'write_file',
            input: { path: 'a.ts', content: 'export const value = 1;\n'.repeat(40) },
          },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'w1', content: 'ok' }] },
      ...smallSession(2).slice(1),
    ];
    const plan = await planMid(messages, settings, counter, contextFor(messages));
    expect(plan.messages[1]).toMatchInlineSnapshot(`
      {
        "content": [
          {
            "id": "w1",
            "input": {
              "content": "[elided: 40 lines, 290 tokens; recall r1]",
              "path": "a.ts",
            },
            "name": "write_file",
            "type": "tool_use",
          },
        ],
        "role": "assistant",
      }
    `);
    expect(plan.items.map((item) => [item.id, item.kind, item.toolUseId])).toMatchInlineSnapshot(`
      [
        [
          "r1",
          "tool-input",
          "w1",
        ],
      ]
    `);
  });

  it('condenses with the summarizer when one is given, and falls back to the cut when it fails', async () => {
    const messages = smallSession(4);
    const failing = {
      specificationVersion: 'v1' as const,
      provider: 'test',
      modelId: 'failing',
      summarize: async () => {
        throw new Error('down');
      },
    };
    const withModel = await planMid(
      messages,
      { ...settings, summarizer: failing },
      counter,
      contextFor(messages),
    );
    const withoutModel = await planMid(messages, settings, counter, contextFor(messages));
    expect(withModel.messages).toEqual(withoutModel.messages);
  });
});
