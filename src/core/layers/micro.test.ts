import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { planMicro } from './micro.js';
import { contextFor, smallSession } from './planner.test-utils.js';

/** Micro without the working files rule: results masked by age alone. */
const off = { turns: 0, maxTokens: 0 };

/** A read of a file (20 lines of code), then `turns` turns of a command. */
function readThenWork(turns: number): Message[] {
  const code = Array.from({ length: 20 }, (_, line) => `func f${line}(a int) int { return a + ${line} }`);
  const messages: Message[] = [
    { role: 'user', content: 'Fix f3.' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'r', name: 'Read', input: { file_path: '/src/a.go' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'r', content: code.join('\n') }] },
  ];
  for (let turn = 1; turn <= turns; turn++) messages.push(...commandTurn(`c${turn}`));
  return messages;
}

function commandTurn(id: string): Message[] {
  return [
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'bash', input: { command: `go test -run ${id}` } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `ok ${id}\n`.repeat(30) }] },
  ];
}

const resultText = (plan: { messages: Message[] } | undefined, id: string) =>
  plan?.messages
    .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
    .flatMap((block) => (block.type === 'tool_result' && block.tool_use_id === id ? [block.content] : []))[0];

describe('planMicro: the files the agent just read', () => {
  const settings = (keepReads: { turns: number; maxTokens: number }) => ({
    keepTurns: 2,
    cacheAware: false,
    clearAtLeast: 0,
    supersede: true,
    keepReads,
  });

  it('keeps a file read of the last `turns` turns whole while masking the commands around it', () => {
    const messages = readThenWork(4);
    const context = contextFor(messages);
    const plan = planMicro(messages, context.index, settings({ turns: 5, maxTokens: 10_000 }), context);
    expect(resultText(plan, 'r')).toContain('func f3(a int) int { return a + 3 }');
    expect(resultText(plan, 'c1')).toMatch(/^\[Previous: used bash/);
    expect(plan?.masked).toEqual(['c1', 'c2']);
  });

  it('masks it by age once it is older, when it does not fit, or with turns 0', () => {
    for (const [turns, keepReads] of [
      [5, { turns: 4, maxTokens: 10_000 }],
      [4, { turns: 5, maxTokens: 50 }],
      [4, { turns: 0, maxTokens: 10_000 }],
    ] as const) {
      const messages = readThenWork(turns);
      const context = contextFor(messages);
      const plan = planMicro(messages, context.index, settings(keepReads), context);
      expect(resultText(plan, 'r')).toMatch(/^\[Previous: used Read/);
    }
  });

  it('keeps a read only while the request, all else masked, stays within the room under mid', () => {
    const messages = readThenWork(4);
    const context = contextFor(messages);
    const keepReads = settings({ turns: 5, maxTokens: 10_000 });
    const freedByAll = planMicro(messages, context.index, settings(off), context)?.freedTokens ?? 0;
    const read = context.index
      .pendingBefore(Number.POSITIVE_INFINITY)
      .find((entry) => entry.toolUseId === 'r');
    const room = (extra: number) => -freedByAll + (read?.tokens ?? 0) + extra;
    const tight = planMicro(messages, context.index, keepReads, context, room(-1));
    expect(resultText(tight, 'r')).toMatch(/^\[Previous: used Read/);
    const enough = planMicro(messages, context.index, keepReads, context, room(0));
    expect(resultText(enough, 'r')).toContain('func f3(a int) int { return a + 3 }');
  });

  it('leaves a kept read pending in the index, so a later batch masks it once it is old enough', () => {
    const messages = readThenWork(4);
    const context = contextFor(messages);
    const keepReads = settings({ turns: 5, maxTokens: 10_000 });
    const plan = planMicro(messages, context.index, keepReads, context);
    context.index.markReplaced(plan?.replaced ?? []);
    context.index.adopt(plan?.messages ?? []);
    const pending = context.index.pendingBefore(Number.POSITIVE_INFINITY).map((entry) => entry.toolUseId);
    expect(pending).toEqual(['r', 'c3', 'c4']);
    const later = [...(plan?.messages ?? []), ...commandTurn('d1')];
    context.index.sync(later);
    const next = planMicro(later, context.index, keepReads, context);
    expect(resultText(next, 'r')).toMatch(/^\[Previous: used Read/);
    expect(resultText(next, 'c3')).toMatch(/^\[Previous: used bash/);
  });
});

describe('planMicro', () => {
  const messages = smallSession(5);

  it('masks results older than keepTurns, oldest first, and reports what it frees', () => {
    const context = contextFor(messages);
    const plan = planMicro(
      messages,
      context.index,
      { keepTurns: 3, cacheAware: false, clearAtLeast: 0, supersede: true, keepReads: off },
      context,
    );
    expect(plan?.masked).toEqual(['t1', 't2']);
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
    const settings = {
      keepTurns: 3,
      cacheAware: true,
      clearAtLeast: 10_000,
      supersede: true,
      keepReads: off,
    };
    expect(planMicro(messages, context.index, settings, context)).toBeUndefined();
  });

  it('has nothing to do within keepTurns', () => {
    const context = contextFor(messages);
    expect(
      planMicro(
        messages,
        context.index,
        { keepTurns: 5, cacheAware: false, clearAtLeast: 0, supersede: true, keepReads: off },
        context,
      ),
    ).toBeUndefined();
  });
});
