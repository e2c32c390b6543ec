import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { SummaryModel, SummaryRequest } from '../core/summary/summary-model.js';
import { createCompactionMiddleware } from './compaction-middleware.js';

/** A tool loop as the AI SDK's OpenAI Responses provider writes it: reasoning parts carry the item id and encrypted content. */
function responsesToolLoop(turns: number, { endWithUser = true } = {}): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: [{ type: 'text', text: 'Read every module and fix the bug.' }] },
  ];
  for (let turn = 1; turn <= turns; turn++) {
    prompt.push(
      {
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: `Module ${turn} next.`,
            providerOptions: {
              openai: { itemId: `rs_${turn}`, reasoningEncryptedContent: `ENCRYPTED_${turn}` },
            },
          },
          {
            type: 'tool-call',
            toolCallId: `call_${turn}`,
            toolName: 'read_file',
            input: { path: `src/m${turn}.ts` },
            providerOptions: { openai: { itemId: `fc_${turn}` } },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `call_${turn}`,
            toolName: 'read_file',
            output: {
              type: 'text',
              value: `// src/m${turn}.ts\n${'export const value = compute(input);\n'.repeat(80)}`,
            },
          },
        ],
      },
    );
  }
  if (endWithUser) prompt.push({ role: 'user', content: [{ type: 'text', text: 'Go on.' }] });
  return prompt;
}

function recordingSummarizer(): SummaryModel & { requests: SummaryRequest[] } {
  const requests: SummaryRequest[] = [];
  return {
    specificationVersion: 'v1',
    provider: 'test',
    modelId: 'recording',
    requests,
    async summarize(request) {
      requests.push(request);
      return { text: '## Task\nFix the bug.\n## Progress\nModules read.' };
    },
  };
}

/** Each reasoning part left is the original object, still directly before the call it preceded. */
function expectReasoningIntact(before: LanguageModelV3Prompt, after: LanguageModelV3Prompt): number {
  const originals = before.flatMap((message) => (message.role === 'assistant' ? message.content : []));
  let kept = 0;
  for (const message of after as LanguageModelV3Message[]) {
    if (message.role !== 'assistant') continue;
    message.content.forEach((part, index) => {
      if (part.type !== 'reasoning') return;
      kept += 1;
      const original = originals.indexOf(part);
      expect(original, 'reasoning part is the original object').toBeGreaterThanOrEqual(0);
      expect(message.content[index + 1]).toBe(originals[original + 1]);
    });
  }
  return kept;
}

async function compacted(prompt: LanguageModelV3Prompt, thresholds: { mid: number; hard: number }) {
  const summarizer = recordingSummarizer();
  const middleware = createCompactionMiddleware({ thresholds, summarizer, micro: { cacheAware: false } });
  const params: LanguageModelV3CallOptions = { prompt };
  const result = await middleware.transformParams!({
    type: 'generate',
    params,
    model: new MockLanguageModelV3(),
  });
  return { prompt: result.prompt, summarizer };
}

describe('AI SDK middleware: provider-specific parts through compaction', () => {
  it('mid keeps every reasoning part (itemId, reasoningEncryptedContent) as it came, beside its call', async () => {
    const prompt = responsesToolLoop(12);
    const { prompt: after } = await compacted(prompt, { mid: 3000, hard: 1_000_000 });
    expect(JSON.stringify(after).length).toBeLessThan(JSON.stringify(prompt).length * 0.8);
    expect(expectReasoningIntact(prompt, after)).toBe(12);
  });

  it('hard drops reasoning only with its turn and never sends encrypted content to the summarizer', async () => {
    // A tool loop step: the turn being continued (its reasoning and call) is kept verbatim.
    const prompt = responsesToolLoop(12, { endWithUser: false });
    const { prompt: after, summarizer } = await compacted(prompt, { mid: 500, hard: 1000 });
    expect(summarizer.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(summarizer.requests)).not.toContain('ENCRYPTED_');
    const kept = expectReasoningIntact(prompt, after);
    expect(kept).toBe(1);
  });
});
