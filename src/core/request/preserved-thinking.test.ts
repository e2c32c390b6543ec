import { describe, expect, it } from 'vitest';
import { createCompactor } from '../compactor.js';
import { withoutThinkingAfterChange } from '../layers/thinking-after-change.js';
import type { Message } from '../model/messages.js';
import { omittedThinkingText } from '../model/thinking.js';
import { claudeCodeRequest } from './request-fixtures.test-utils.js';

/** The indices of the messages that carry a thinking block. */
function thinkingAt(messages: readonly unknown[]): number[] {
  return messages.flatMap((message, index) => {
    const content = (message as Message).content;
    const thinks = Array.isArray(content) && content.some((block) => block.type === 'thinking');
    return thinks ? [index] : [];
  });
}

/** The index of the first message `after` does not send as `before` had it. */
function firstChanged(before: readonly unknown[], after: readonly unknown[]): number {
  const at = after.findIndex((message, index) => JSON.stringify(message) !== JSON.stringify(before[index]));
  return at === -1 ? after.length : at;
}

/** Claude Code's request on a model: its default (`claude-opus-5-5`) checks its thinking's prefix. */
function requestOn(model: string) {
  return { ...claudeCodeRequest(), model };
}

describe('compaction for a model with preserved thinking', () => {
  it('mid leaves out the thinking from the first message it changed on, and keeps the thinking before it', async () => {
    const body = requestOn('claude-opus-5-5');
    const result = await createCompactor({ contextWindow: 200_000 }).compactRequest(body, { force: 'mid' });
    expect(result.layer).not.toBe('none');
    const after = result.body.messages as unknown[];
    const changed = firstChanged(body.messages, after);
    expect(changed).toBeGreaterThan(2);
    const kept = thinkingAt(after);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((index) => index < changed)).toBe(true);
    // Before the change every thinking block is sent as it came.
    expect(kept).toEqual(thinkingAt(body.messages).filter((index) => index < changed));
    expect(JSON.stringify(after.slice(0, changed))).toBe(JSON.stringify(body.messages.slice(0, changed)));
  });

  it('hard leaves no thinking in the turn it keeps', async () => {
    const body = requestOn('claude-opus-5-5');
    const result = await createCompactor({ contextWindow: 200_000 }).compactRequest(body, { force: 'hard' });
    expect(result.layer).toBe('hard');
    expect(thinkingAt(result.body.messages as unknown[])).toEqual([]);
    // The turn still goes out: its text and its call.
    expect(JSON.stringify(result.body.messages.slice(-4))).toContain('Checking part 24.');
  });

  it('an older model keeps every thinking block (it checks only the block itself)', async () => {
    const body = requestOn('claude-sonnet-4-5-20250929');
    const result = await createCompactor({ contextWindow: 200_000 }).compactRequest(body, { force: 'hard' });
    expect(thinkingAt(result.body.messages as unknown[])).not.toEqual([]);
  });

  it('maybeCompact takes it as an option, and counts what it leaves out', async () => {
    const { messages } = claudeCodeRequest();
    const history = messages.filter((message) => message.role !== 'system') as Message[];
    const plain = await createCompactor({ contextWindow: 200_000 }).maybeCompact(history, { force: 'mid' });
    const preserved = await createCompactor({ contextWindow: 200_000 }).maybeCompact(history, {
      force: 'mid',
      preservedThinking: true,
    });
    expect(thinkingAt(preserved.messages).length).toBeLessThan(thinkingAt(plain.messages).length);
    expect(preserved.tokensAfter).toBeLessThan(plain.tokensAfter);
  });

  it('an assistant message of thinking alone keeps a line of text', () => {
    const input: Message[] = [
      { role: 'user', content: 'Look at the repository.' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Where to start.', signature: 'sig-1' }] },
      { role: 'user', content: 'Go on.' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Done reading.', signature: 'sig-2' }] },
      { role: 'user', content: 'And now?' },
    ];
    // A layer changed the third message: the first thinking is before it, the second after.
    const output = input.map((message, index) => (index === 2 ? { ...message, content: 'Go on!' } : message));
    const { messages, removed } = withoutThinkingAfterChange(input, output);
    expect(removed).toBe(1);
    expect(messages[1]).toBe(input[1]);
    expect(messages[3]!.content).toEqual([{ type: 'text', text: omittedThinkingText }]);
    // Nothing changed: the same array back.
    expect(withoutThinkingAfterChange(input, input).messages).toBe(input);
  });
});
