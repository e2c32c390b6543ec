import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createCompactionMiddleware } from './compaction-middleware.js';

/** A tool loop of `turns` reads, each assistant turn opening with signed reasoning. */
function thinkingLoop(turns: number): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: [{ type: 'text', text: 'Read every file.' }] },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const toolCallId = `call_${turn}`;
    prompt.push(
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: '', providerOptions: { anthropic: { signature: `sig-${turn}` } } },
          { type: 'tool-call', toolCallId, toolName: 'read_file', input: { path: `src/file-${turn}.ts` } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId,
            toolName: 'read_file',
            output: {
              type: 'text',
              value: `// file ${turn}\n${'export const value = compute(input);\n'.repeat(60)}`,
            },
          },
        ],
      },
    );
  }
  return prompt;
}

/** The indices of the prompt's messages that carry reasoning. */
function reasoningAt(prompt: LanguageModelV3Prompt): number[] {
  return prompt.flatMap((message, index) =>
    Array.isArray(message.content) && message.content.some((part) => part.type === 'reasoning')
      ? [index]
      : [],
  );
}

async function compacted(
  modelId: string,
): Promise<{ before: LanguageModelV3Prompt; after: LanguageModelV3Prompt }> {
  const before = thinkingLoop(12);
  const middleware = createCompactionMiddleware({
    thresholds: { mid: 3000, hard: 50_000 },
    micro: { cacheAware: false, keepTurns: 2, minTokens: 50 },
  });
  const model = new MockLanguageModelV3({ modelId });
  const transformed = await middleware.transformParams?.({
    type: 'generate',
    params: { prompt: before },
    model,
  });
  return { before, after: transformed!.prompt };
}

describe('the AI SDK middleware on a model with preserved thinking', () => {
  it('sends no reasoning after the first message a compaction changed, and keeps the reasoning before it', async () => {
    const { before, after } = await compacted('claude-opus-5-5');
    const changed = after.findIndex(
      (message, index) => JSON.stringify(message) !== JSON.stringify(before[index]),
    );
    expect(changed).toBeGreaterThan(1);
    const kept = reasoningAt(after);
    expect(kept.every((index) => index < changed)).toBe(true);
    expect(kept).toEqual(reasoningAt(before).filter((index) => index < changed));
  });

  it('keeps every reasoning part on a model that checks only the block itself', async () => {
    const { before, after } = await compacted('claude-sonnet-4-5');
    expect(reasoningAt(after)).toEqual(reasoningAt(before));
  });
});
