import { describe, expect, it } from 'vitest';
import { createExtractiveSummaryModel } from '../summary/extractive-summary.js';
import { createIncrementalCounter } from '../tokens/incremental-counter.js';
import { planHard } from './hard.js';
import { contextFor, counter, rule, smallSession } from './planner.test-utils.js';

const settings = {
  summarizer: createExtractiveSummaryModel(),
  identity: 'You are the build agent.',
  maxSummaryTokens: 400,
  ledgerTokens: 1500,
  workingSetTokens: 0,
  keptTurnTokens: Number.POSITIVE_INFINITY,
  filesBack: { maxFiles: 5, maxTokens: 2000 },
  maxAttempts: 1,
  retryDelayMs: 0,
  timeoutMs: 1000,
};
const local = createIncrementalCounter(counter);

describe('planHard', () => {
  it('returns the summary head, the latest request and the last turn, with the dropped history as one item', async () => {
    const messages = smallSession(4);
    const plan = await planHard(messages, {
      settings,
      counter,
      rewrite: contextFor(messages),
      rule,
      countTokens: (list) => local.count(list),
      maxTokens: 100_000,
    });
    expect(plan?.messages).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "text": "<context_summary recall="r1">
      ## Task and constraints
      - User: Fix the build.

      ## Done so far
      - bash(make step1) → ok
      - bash(make step2) → ok
      - bash(make step3) → ok

      ## Key findings and decisions
      - (none)

      ## Files touched
      - (none)

      ## Errors and fixes
      - (none)

      ## Current state
      - Latest request: Fix the build.
      - Last assistant note: Turn 3. I will check the build output and then fix what fails.

      ## Next steps
      - Continue the task from the current state.
      </context_summary>

      <identity>
      You are the build agent.
      </identity>",
              "type": "text",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "text": "Understood. Continuing from the summary.",
              "type": "text",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "text": "Fix the build.",
              "type": "text",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "text": "Turn 4. I will check the build output and then fix what fails. I will check the build output and then fix what fails. I will check the build output and then fix what fails. ",
              "type": "text",
            },
            {
              "id": "t4",
              "input": {
                "command": "make step4",
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
              "content": "step4 line 0: compiling module 0
      step4 line 1: compiling module 1
      step4 line 2: compiling module 2
      step4 line 3: compiling module 3
      step4 line 4: compiling module 4
      step4 line 5: compiling module 5
      step4 line 6: compiling module 6
      step4 line 7: compiling module 7
      step4 line 8: compiling module 8
      step4 line 9: compiling module 9
      step4 line 10: compiling module 10
      step4 line 11: compiling module 11",
              "tool_use_id": "t4",
              "type": "tool_result",
            },
          ],
          "role": "user",
        },
      ]
    `);
    expect(
      plan?.items.map((item) => [item.id, item.kind, item.messages?.length, item.headLength]),
    ).toMatchInlineSnapshot(`
      [
        [
          "r1",
          "messages",
          7,
          3,
        ],
      ]
    `);
    expect(plan?.freedTokens).toBeGreaterThan(0);
    expect(plan?.events).toEqual([]);
  });

  it('masks the kept turn too when the result is still over maxTokens', async () => {
    const messages = smallSession(3, 200);
    const plan = await planHard(messages, {
      settings,
      counter,
      rewrite: contextFor(messages),
      rule,
      countTokens: (list) => local.count(list),
      maxTokens: 500,
    });
    expect(JSON.stringify(plan?.messages.at(-1))).toMatch(/\[Previous: used bash\(make step3\)/);
    expect(plan?.items.map((item) => item.kind)).toEqual(['messages', 'tool-result']);
  });

  it('has nothing to summarize when the history is only the latest turn', async () => {
    const messages = smallSession(1);
    const plan = await planHard(messages.slice(0, 1), {
      settings,
      counter,
      rewrite: contextFor(messages),
      rule,
      countTokens: (list) => local.count(list),
      maxTokens: 100,
    });
    expect(plan).toBeUndefined();
  });
});
