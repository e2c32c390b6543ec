import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Message } from '../model/messages.js';
import { createHeuristicCounter } from './heuristic-counter.js';
import { createIncrementalCounter } from './incremental-counter.js';
import { countMessageTokens, countSystemTokens } from './message-tokens.js';
import type { TokenCounter } from './token-counter.js';

function spyCounter(): TokenCounter & { countText: ReturnType<typeof vi.fn<(text: string) => number>> } {
  return { specificationVersion: 'v1', name: 'spy', countText: vi.fn((text: string) => text.length) };
}

function freshCount(messages: readonly Message[], system: string | undefined, counter: TokenCounter): number {
  return (
    countSystemTokens(system, counter) + messages.reduce((sum, m) => sum + countMessageTokens(m, counter), 0)
  );
}

const turn = (index: number): Message[] => [
  { role: 'assistant', content: `step ${index}: run the tests` },
  { role: 'user', content: `output of step ${index}\n${'line\n'.repeat(index)}` },
];

describe('createIncrementalCounter', () => {
  it('tokenizes only the new messages after the conversation grew by one turn', () => {
    const counter = spyCounter();
    const incremental = createIncrementalCounter(counter);
    const messages: Message[] = [{ role: 'user', content: 'fix the bug' }];
    for (let index = 1; index <= 5; index++) messages.push(...turn(index));
    incremental.count(messages, 'system prompt');
    counter.countText.mockClear();

    const [assistant, user] = turn(6) as [Message, Message];
    messages.push(assistant, user);
    incremental.count(messages, 'system prompt');

    expect(counter.countText.mock.calls.map(([text]) => text)).toEqual([assistant.content, user.content]);
  });

  it('counts a system prompt sent again as a copy (through JSON) once, and a changed one again', () => {
    const counter = spyCounter();
    const incremental = createIncrementalCounter(counter);
    const messages: Message[] = [{ role: 'user', content: 'fix the bug' }];
    const system = [{ type: 'text' as const, text: 'You are a coding agent.' }];
    incremental.count(messages, system);
    counter.countText.mockClear();
    incremental.count(messages, JSON.parse(JSON.stringify(system)));
    expect(counter.countText).not.toHaveBeenCalled();
    const other = [{ type: 'text' as const, text: 'You review code.' }];
    const changed = incremental.count(messages, other);
    expect(counter.countText).toHaveBeenCalledWith('You review code.');
    expect(changed).toBe(createIncrementalCounter(counter).count(messages, other));
  });

  it('tokenizes nothing when the same list is counted again', () => {
    const counter = spyCounter();
    const incremental = createIncrementalCounter(counter);
    const messages = [...turn(1), ...turn(2)];
    const first = incremental.count(messages, 'system');
    counter.countText.mockClear();
    expect(incremental.count(messages, 'system')).toBe(first);
    expect(counter.countText).not.toHaveBeenCalled();
  });

  it('recounts a replaced message (a new object) but reuses every message object it has seen', () => {
    const counter = spyCounter();
    const incremental = createIncrementalCounter(counter);
    const messages = [...turn(1), ...turn(2), ...turn(3)];
    incremental.count(messages);
    counter.countText.mockClear();

    const replaced: Message = { role: 'user', content: '[compacted]' };
    const compacted = [messages[0]!, replaced, ...messages.slice(2)];
    const counted = incremental.count(compacted);
    expect(counter.countText.mock.calls.map(([text]) => text)).toEqual(['[compacted]']);
    expect(counted).toBe(freshCount(compacted, undefined, counter));
  });

  it('gives the same number as a fresh count through any sequence of growth, truncation and rewrites', () => {
    const heuristic = createHeuristicCounter();
    const pool: Message[] = Array.from({ length: 12 }, (_, index) => turn(index)).flat();
    const step = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), index: fc.nat(pool.length - 1), count: fc.nat(3) }),
      fc.record({ kind: fc.constant('truncate' as const), keep: fc.nat(30) }),
      fc.record({
        kind: fc.constant('rewrite' as const),
        at: fc.nat(30),
        text: fc.string({ maxLength: 40 }),
      }),
    );
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 25 }),
        fc.option(fc.string({ maxLength: 30 })),
        (steps, system) => {
          const incremental = createIncrementalCounter(heuristic);
          let messages: Message[] = [];
          for (const change of steps) {
            if (change.kind === 'append')
              messages = [...messages, ...pool.slice(change.index, change.index + change.count)];
            else if (change.kind === 'truncate') messages = messages.slice(0, change.keep);
            else if (change.at < messages.length) {
              messages = messages.map((message, index) =>
                index === change.at ? { role: message.role, content: change.text || 'x' } : message,
              );
            }
            const systemPrompt = system ?? undefined;
            expect(incremental.count(messages, systemPrompt)).toBe(
              freshCount(messages, systemPrompt, heuristic),
            );
          }
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('follows a caller that pushes onto the same array it passed before', () => {
    const heuristic = createHeuristicCounter();
    const incremental = createIncrementalCounter(heuristic);
    const messages: Message[] = [];
    for (let index = 0; index < 10; index++) {
      messages.push(...turn(index));
      expect(incremental.count(messages)).toBe(freshCount(messages, undefined, heuristic));
    }
  });

  it('caches per message object across lists', () => {
    const counter = spyCounter();
    const incremental = createIncrementalCounter(counter);
    const [shared] = turn(1) as [Message];
    incremental.count([shared]);
    incremental.count([{ role: 'user', content: 'other' }, shared]);
    expect(counter.countText.mock.calls.filter(([text]) => text === shared.content)).toHaveLength(1);
    expect(incremental.countMessage(shared)).toBe(countMessageTokens(shared, counter));
  });
});
