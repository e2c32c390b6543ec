import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { rebuildConversation } from '../core/archive/rebuild.js';
import { createCompactor } from '../core/compactor.js';
import { arbitraryValidConversation } from '../core/conversation/arbitrary-conversation.test-utils.js';
import { validateMessages } from '../core/conversation/validate.js';
import type { Message } from '../core/model/messages.js';

/** The same conversation with every turn's calls named call_0, call_1, … again. */
function reuseIds(messages: Message[]): Message[] {
  return JSON.parse(JSON.stringify(messages).replace(/"toolu_\d+_(\d+)"/g, '"call_$1"')) as Message[];
}

it.each(['resend', 'carry'] as const)('reused ids, %s', async (style) => {
  let steps = 0;
  await fc.assert(
    fc.asyncProperty(arbitraryValidConversation(), fc.constantFrom(400, 1500, 4000), fc.constant(process.env.RECALL !== "off"), async (generated, hard, recall) => {
      const messages = reuseIds(generated);
      const archive = createMemoryArchiveStore();
      const compactor = createCompactor({
        archive, sessionId: 'f', recall,
        thresholds: { mid: Math.floor(hard / 2), hard },
        micro: { cacheAware: false, minTokens: 1, keepTurns: 1 },
        mid: { keepToolResults: 1, maxAssistantChars: 40, maxToolInputTokens: 5 },
        hard: { retryDelayMs: 0, maxAttempts: 1, maxSummaryTokens: 400 },
      });
      let previous: Message[] = [];
      let sent = 0;
      for (let end = 2; end <= messages.length; end++) {
        if (messages[end - 1]!.role !== 'user') continue;
        const original = messages.slice(0, end);
        const input = style === 'resend' ? original : [...previous, ...messages.slice(sent, end)];
        const result = await compactor.maybeCompact(input);
        const problems = validateMessages(result.messages, { relativeTo: input });
        if (problems.length) expect(problems).toEqual([]);
        const rebuilt = rebuildConversation(result.messages, await archive.list('f'));
        if (!isDeepStrictEqual(rebuilt, original)) expect(rebuilt).toEqual(original);
        previous = result.messages;
        sent = end;
        steps++;
      }
    }),
    { numRuns: Number(process.env.RUNS ?? 1000), seed: Number(process.env.SEED ?? 3) },
  );
  console.log('steps', steps);
}, 300_000);
