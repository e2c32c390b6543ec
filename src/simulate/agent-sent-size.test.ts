import { describe, expect, it } from 'vitest';
import type { Message } from '../core/model/messages.js';
import { agentSentTokens } from './agent-sent-size.js';

const turn = (text: string): Message[] => [
  { role: 'user', content: text },
  { role: 'assistant', content: `on ${text}` },
];

/** Four requests; the agent compacted before the third (messages from index 4 on). */
const messages = [...turn('a'), ...turn('b'), ...turn('c'), ...turn('d')];
const usage = (prompts: (number | undefined)[]) => ({
  conversation: { messages },
  usage: prompts.map((tokens) => (tokens === undefined ? undefined : { input_tokens: tokens })),
});

describe('agentSentTokens', () => {
  it("scales the first request after the point, beyond the session's smallest, by the history's ratio", () => {
    // Smallest 1,000; before the point 11,000 (10,000 of history); after it 3,000 (2,000 sent).
    // The caller counted the history 5,000: the agent sent a fifth of it, 1,000 in its tokens.
    expect(agentSentTokens(usage([1_000, 11_000, 3_000, 3_500]), { index: 4 }, 5_000)).toBe(1_000);
  });

  it('skips requests without usage or counted at 0 on either side', () => {
    expect(agentSentTokens(usage([1_000, 0, undefined, 3_000]), { index: 4 }, 5_000)).toBeUndefined();
    expect(agentSentTokens(usage([1_000, 11_000, 0, 3_000]), { index: 4 }, 5_000)).toBe(1_000);
    expect(
      agentSentTokens(usage([1_000, 11_000, undefined, undefined]), { index: 4 }, 5_000),
    ).toBeUndefined();
  });

  it('is undefined when the smallest request is the one before the point', () => {
    expect(agentSentTokens(usage([9_000, 1_000, 3_000, 3_500]), { index: 4 }, 5_000)).toBeUndefined();
  });
});
