import { describe, expect, it } from 'vitest';
import { planMicro } from './micro.js';
import { contextFor, smallSession } from './planner.test-utils.js';

describe('planMicro', () => {
  const messages = smallSession(5);

  it('masks results older than keepTurns, oldest first, and reports what it frees', () => {
    const context = contextFor(messages);
    const plan = planMicro(
      messages,
      context.index,
      { keepTurns: 3, cacheAware: false, clearAtLeast: 0, supersede: true },
      context,
    );
    expect(plan?.consumed).toBe(2);
    expect(plan?.freedTokens).toMatchInlineSnapshot(`206`);
    expect(plan?.messages.slice(1, 5)).toMatchInlineSnapshot(`
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
              "text": "Turn 2. I will check the build output and then fix what fails. I will check the build output and then fix what fails. I will check the build output and then fix what fails. ",
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
    expect(plan?.items.map((item) => [item.id, item.kind, item.toolUseId])).toMatchInlineSnapshot(`
      [
        [
          "r1",
          "tool-result",
          "t1",
        ],
        [
          "r2",
          "tool-result",
          "t2",
        ],
      ]
    `);
    // Untouched messages are the same objects; the input is not changed.
    expect(plan?.messages[5]).toBe(messages[5]);
    expect(messages).toEqual(smallSession(5));
  });

  it('waits for a batch of clearAtLeast tokens when cache-aware', () => {
    const context = contextFor(messages);
    const settings = { keepTurns: 3, cacheAware: true, clearAtLeast: 10_000, supersede: true };
    expect(planMicro(messages, context.index, settings, context)).toBeUndefined();
  });

  it('has nothing to do within keepTurns', () => {
    const context = contextFor(messages);
    expect(
      planMicro(
        messages,
        context.index,
        { keepTurns: 5, cacheAware: false, clearAtLeast: 0, supersede: true },
        context,
      ),
    ).toBeUndefined();
  });
});
