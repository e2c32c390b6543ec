import { describe, expect, it } from 'vitest';
import { createCompactor } from '../compactor.js';
import { agentSession } from '../conversation/session-builder.test-utils.js';
import type { Message } from '../model/messages.js';
import { createExtractiveSummaryModel } from './extractive-summary.js';
import { SAME_MODEL_PROVIDER, type SummaryModel, type SummaryRequest } from './summary-model.js';

/** The test session with each assistant turn opening with its signed thinking, as Claude Code's do. */
function thinkingSession(turns: number): Message[] {
  return agentSession(turns).map((message, index) =>
    message.role === 'assistant' && Array.isArray(message.content)
      ? {
          ...message,
          content: [
            { type: 'thinking', thinking: `plan ${index}`, signature: `SIG${index}` },
            ...message.content,
          ],
        }
      : message,
  );
}

function recording(provider: string): SummaryModel & { requests: SummaryRequest[] } {
  const extractive = createExtractiveSummaryModel();
  const requests: SummaryRequest[] = [];
  return {
    specificationVersion: 'v1',
    provider,
    modelId: 'recording',
    requests,
    async summarize(request, options) {
      requests.push(request);
      return extractive.summarize(request, options);
    },
  };
}

const blockTypes = (messages: readonly Message[]) =>
  messages.flatMap((message) =>
    Array.isArray(message.content) ? message.content.map((block) => block.type) : [],
  );

describe('the history a hard compaction sends its summarizer', () => {
  it('is the history as the agent sent it for the agent’s own model, so its request shares the cached prefix', async () => {
    const history = thinkingSession(12);
    const summarizer = recording(SAME_MODEL_PROVIDER);
    await createCompactor({ summarizer }).maybeCompact(history, { force: 'hard' });
    const sent = summarizer.requests[0]!.messages;
    expect(blockTypes(sent)).toContain('thinking');
    // Every message but the last (which carries the instructions) is the agent's own object.
    for (const [index, message] of sent.slice(0, -1).entries()) expect(message).toBe(history[index]);
  });

  it('leaves out the signed thinking for any other model', async () => {
    const summarizer = recording('anthropic');
    await createCompactor({ summarizer }).maybeCompact(thinkingSession(12), { force: 'hard' });
    expect(summarizer.requests).toHaveLength(1);
    expect(blockTypes(summarizer.requests[0]!.messages)).not.toContain('thinking');
  });
});
