import { describe, expect, it } from 'vitest';
import type { Message } from '../core/model/messages.js';
import { createExtractiveSummaryModel } from '../core/summary/extractive-summary.js';
import { peerCompactions } from './peers-at-point.js';
import { createRequestTokenCounter } from './prompt-cache.js';
import { characters } from './replay.test-utils.js';
import { peerNames } from './replay-strategies.js';

/** A long session: the user's task, then many read calls with long results. */
function history(): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'Find where retryOnce is called.' }];
  for (let call = 0; call < 30; call++) {
    messages.push(
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: `r${call}`, name: 'Read', input: { file_path: `/repo/f${call}.go` } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: `r${call}`, content: `package f\n${'x := 1\n'.repeat(200)}` },
        ],
      },
    );
  }
  messages.push({ role: 'assistant', content: 'Still looking.' }, { role: 'user', content: 'go on' });
  return messages;
}

describe('peerCompactions', () => {
  it('makes each peer compact right at the point: its context is smaller than the history', async () => {
    const tokens = createRequestTokenCounter(characters);
    const compactions = peerCompactions({ summarizer: createExtractiveSummaryModel(), tokens });
    expect(Object.keys(compactions)).toEqual([...peerNames]);
    const messages = history();
    const size = tokens.request({ messages });
    for (const name of peerNames) {
      const context = await compactions[name]!(messages, undefined);
      expect(tokens.request({ messages: context }), name).toBeLessThan(size);
    }
  });
});
