import { describe, expect, it } from 'vitest';
import { toolResultText } from '../_internal/text.js';
import type { Message, ToolResultBlock } from '../model/messages.js';
import { countMessageTokens } from '../tokens/message-tokens.js';
import { fitKeptTurn } from './hard-kept-turn.js';
import { contextFor, counter, rule, smallSession } from './planner.test-utils.js';

const head: Message[] = [
  { role: 'user', content: [{ type: 'text', text: '<context_summary>\nDone.\n</context_summary>' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'Understood.' }] },
];
const turn = smallSession(1, 600).slice(1);
const output = [...head, ...turn];
const turnTokens = turn.reduce((sum, message) => sum + countMessageTokens(message, counter), 0);
const fitWithin = (keptTurnTokens: number, maxTokens = 1_000_000) =>
  fitKeptTurn(output, turn.length, {
    counter,
    rule,
    rewrite: contextFor(output),
    keptTurnTokens,
    maxTokens,
    countTokens: (messages) =>
      messages.reduce((sum, message) => sum + countMessageTokens(message, counter), 0),
  });

describe('fitKeptTurn', () => {
  it('sends a turn within its budget as it came, the same objects', () => {
    const fitted = fitWithin(turnTokens);
    expect(fitted.items).toEqual([]);
    expect(fitted.messages).toEqual(output);
    for (const [index, message] of fitted.messages.entries()) expect(message).toBe(output[index]);
  });

  it('cuts a turn over its budget to head and tail, the whole archived', () => {
    const fitted = fitWithin(Math.floor(turnTokens / 2));
    const original = toolResultText((turn[1]!.content as ToolResultBlock[])[0]!);
    const cut = toolResultText((fitted.messages.at(-1)!.content as ToolResultBlock[])[0]!);
    expect(cut).toMatch(/cut here[\s\S]*…shortened; .* tokens in full; recall r1\]$/);
    expect(cut.length).toBeLessThan(original.length);
    expect(fitted.items).toHaveLength(1);
    expect(toolResultText(fitted.items[0]!.block as ToolResultBlock)).toBe(original);
  });

  it('masks the turn when the whole output is over maxTokens', () => {
    const fitted = fitWithin(Number.POSITIVE_INFINITY, 100);
    expect(toolResultText((fitted.messages.at(-1)!.content as ToolResultBlock[])[0]!)).toMatch(
      /^\[Previous: used bash\(make step1\).*recall r1\]$/,
    );
  });
});
