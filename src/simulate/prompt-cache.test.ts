import { describe, expect, it } from 'vitest';
import type { Message } from '../core/model/messages.js';
import { BLOCK_OVERHEAD_TOKENS, MESSAGE_OVERHEAD_TOKENS } from '../core/tokens/message-tokens.js';
import { defaultPriceTable } from '../proxy/price-table.js';
import { billRequest, commonPrefix, createRequestTokenCounter } from './prompt-cache.js';
import { characters } from './replay.test-utils.js';

const tokens = createRequestTokenCounter(characters);
const M = MESSAGE_OVERHEAD_TOKENS;
const B = BLOCK_OVERHEAD_TOKENS;

const task: Message = { role: 'user', content: 'abcd' }; // M + 4
const reply: Message = { role: 'assistant', content: [{ type: 'text', text: 'xy' }] }; // M + B + 2

describe('commonPrefix', () => {
  it('reuses nothing on the first request', () => {
    expect(commonPrefix(undefined, { messages: [task] }, tokens)).toEqual({
      tokens: 0,
      coversPrevious: true,
    });
  });

  it('reuses the whole previous request when the next one only appends', () => {
    const next = { system: 'sys', messages: [task, reply, { role: 'user', content: 'more' } as Message] };
    const result = commonPrefix({ system: 'sys', messages: [task] }, next, tokens);
    // system (M + 3), then the task, then the reply and the new user message are new.
    expect(result).toEqual({ tokens: M + 3 + M + 4, coversPrevious: true });
  });

  it('compares by value, not by object', () => {
    const copy = structuredClone(task);
    expect(commonPrefix({ messages: [task] }, { messages: [copy, reply] }, tokens)).toEqual({
      tokens: M + 4,
      coversPrevious: true,
    });
  });

  it('counts equal leading blocks of a changed message and flags the rewrite', () => {
    const before: Message = {
      role: 'user',
      content: [
        { type: 'text', text: 'keep' },
        { type: 'tool_result', tool_use_id: 't1', content: 'long original output' },
      ],
    };
    const after: Message = {
      role: 'user',
      content: [
        { type: 'text', text: 'keep' },
        { type: 'tool_result', tool_use_id: 't1', content: '[Previous: used bash]' },
      ],
    };
    const result = commonPrefix(
      { messages: [task, before, reply] },
      { messages: [task, after, reply] },
      tokens,
    );
    expect(result).toEqual({ tokens: M + 4 + M + B + 4, coversPrevious: false });
  });

  it('a changed system prompt rewrites everything', () => {
    expect(
      commonPrefix({ system: 'a', messages: [task] }, { system: 'b', messages: [task] }, tokens),
    ).toEqual({
      tokens: 0,
      coversPrevious: false,
    });
  });

  it('a shorter request that drops the tail is a rewrite', () => {
    expect(commonPrefix({ messages: [task, reply] }, { messages: [task] }, tokens)).toEqual({
      tokens: M + 4,
      coversPrevious: false,
    });
  });

  it('a message whose role changed shares nothing of it', () => {
    const asAssistant: Message = { role: 'assistant', content: 'abcd' };
    expect(commonPrefix({ messages: [task] }, { messages: [asAssistant] }, tokens)).toEqual({
      tokens: 0,
      coversPrevious: false,
    });
  });
});

describe('billRequest', () => {
  it('bills reads at 0.1×, writes at 1.25× and output at the output price', () => {
    const bill = billRequest(
      { inputTokens: 1_000_000, reusedTokens: 600_000, outputTokens: 100_000 },
      defaultPriceTable,
    );
    expect(bill.cacheReadTokens).toBe(600_000);
    expect(bill.cacheWriteTokens).toBe(400_000);
    expect(bill.billedInputTokens).toBeCloseTo(600_000 * 0.1 + 400_000 * 1.25);
    // $3/MTok × 0.56 MTok billed input + $15/MTok × 0.1 MTok output
    expect(bill.cost).toBeCloseTo(3 * 0.56 + 15 * 0.1);
  });

  it('never reads more than was sent', () => {
    const bill = billRequest({ inputTokens: 10, reusedTokens: 50, outputTokens: 0 }, defaultPriceTable);
    expect(bill).toMatchObject({ cacheReadTokens: 10, cacheWriteTokens: 0 });
  });

  it('follows an overridden price table', () => {
    const prices = { ...defaultPriceTable, inputPerMillion: 15, outputPerMillion: 75 };
    expect(
      billRequest({ inputTokens: 1_000_000, reusedTokens: 0, outputTokens: 0 }, prices).cost,
    ).toBeCloseTo(18.75);
  });
});
