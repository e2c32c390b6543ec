import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { planMid } from './mid.js';
import { contextFor, counter, rule } from './planner.test-utils.js';

/** Mid settings matching the index `contextFor` builds (maxAssistantChars 80, maxToolInputTokens 40). */
const settings = (keepToolResults: number) => ({
  keepToolResults,
  maxAssistantChars: 80,
  maxToolInputTokens: 40,
  rule,
  timeoutMs: 120_000,
});

const words = (count: number, seed: number) =>
  Array.from({ length: count }, (_, index) => `word${(index * 7 + seed) % 97}`).join(' ');

interface Turn {
  textWords: number;
  inputWords: number;
  resultLines: number;
  tool: string;
}

/** One turn: assistant text (short or long, in sentences), a tool call (small or large input), its result. */
const arbitraryTurn: fc.Arbitrary<Turn> = fc.record({
  textWords: fc.integer({ min: 1, max: 120 }),
  inputWords: fc.integer({ min: 1, max: 200 }),
  resultLines: fc.integer({ min: 0, max: 40 }),
  tool: fc.constantFrom('bash', 'read_file', 'todo'),
});

function session(turns: readonly Turn[]): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'Fix the build.' }];
  turns.forEach((turn, index) => {
    const id = `t${index}`;
    const text = `${words(turn.textWords, index).replace(/(\S+ \S+ \S+ \S+ \S+ \S+) /g, '$1. ')}.`;
    const input = { path: `src/${index}.ts`, body: words(turn.inputWords, index) };
    const lines = Array.from({ length: turn.resultLines }, (_, line) => `${index}:${line} ${words(6, line)}`);
    messages.push(
      {
        role: 'assistant',
        content: [
          { type: 'text', text },
          { type: 'tool_use', id, name: turn.tool, input },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: lines.join('\n') }] },
    );
  });
  return messages;
}

describe('HistoryIndex.estimateMidFreed', () => {
  it('agrees with what planMid frees', async () => {
    // Before the index stopped at the assistant message of the oldest kept result, it counted
    // that message's long text and large input, which mid keeps: hundreds of tokens over the plan.
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbitraryTurn, { minLength: 0, maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        async (turns, keep) => {
          const messages = session(turns);
          const context = contextFor(messages);
          const estimate = context.index.estimateMidFreed(keep);
          const plan = await planMid(messages, settings(keep), counter, context);
          // Close to it: the index guesses the cut of long text and the size of an elided input,
          // so a text or input just over its limit (which mid keeps whole) may count a few tokens.
          expect(Math.abs(plan.freedTokens - estimate)).toBeLessThanOrEqual(0.15 * plan.freedTokens + 40);
        },
      ),
      { seed: 19, numRuns: 300 },
    );
  });
});
