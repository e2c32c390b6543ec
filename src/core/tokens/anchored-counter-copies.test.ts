import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { createAnchoredCounter } from './anchored-counter.js';
import { createHeuristicCounter } from './heuristic-counter.js';

const history: Message[] = [
  { role: 'user', content: 'Fix the failing test in src/total.ts.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 't1', name: 'read', input: { path: 'src/total.ts' } }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'export const total = 1;' }] },
];
const added: Message[] = [{ role: 'assistant', content: 'The constant is wrong; changing it.' }];
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('createAnchoredCounter with a history sent back as copies', () => {
  it('anchors a request whose messages are JSON copies of the anchor like the same objects', () => {
    const byReference = createAnchoredCounter({ counter: createHeuristicCounter() });
    const byCopy = createAnchoredCounter({ counter: createHeuristicCounter() });
    for (const counter of [byReference, byCopy]) counter.observe({ input_tokens: 900 }, history, 'system');
    const expected = byReference.count([...history, ...added], 'system');
    // Anchored: the provider's 900 plus the delta, far from the local count of the whole request.
    expect(expected).toBeGreaterThanOrEqual(900);
    expect(byCopy.count([...copy(history), ...added], 'system')).toBe(expected);
    // A copy that differs in content is another request.
    const changed = copy(history);
    changed[0] = { role: 'user', content: 'Another task.' };
    expect(byCopy.count([...changed, ...added], 'system')).toBeLessThan(expected);
  });
});
