import { describe, expect, it } from 'vitest';
import { createCompactor } from './compactor.js';
import type { Message } from './model/messages.js';
import { extractiveSummary } from './summary/extractive-summary.js';
import type { SummaryModel } from './summary/summary-model.js';

/** A history of `count` tool turns of about 250 tokens each. */
function history(count: number): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'Fix the failing tests of the shop service.' }];
  for (let index = 0; index < count; index++) {
    messages.push(
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: `t${index}`, name: 'bash', input: { command: 'pytest' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: `t${index}`, content: `case ${index} output\n`.repeat(40) },
        ],
      },
    );
  }
  return messages;
}

/** A summary model that notes it was called, under `name`. */
function namedModel(name: string, calls: string[]): SummaryModel {
  return {
    specificationVersion: 'v1',
    provider: 'test',
    modelId: name,
    async summarize(request) {
      calls.push(name);
      return { text: extractiveSummary(request.messages.slice(0, -1), request.maxOutputTokens) };
    },
  };
}

describe('a summarizer passed with the call', () => {
  it('writes that call’s hard summary instead of the compactor’s own', async () => {
    const calls: string[] = [];
    const compactor = createCompactor({
      thresholds: { mid: 4000, hard: 8000 },
      summarizer: namedModel('compactor', calls),
      micro: { cacheAware: true, clearAtLeast: 100_000 },
      mid: { keepToolResults: 1000 },
    });
    const result = await compactor.maybeCompact(history(40), { summarizer: namedModel('call', calls) });
    expect(result.layer).toBe('hard');
    expect(calls).toEqual(['call']);
  });
});
