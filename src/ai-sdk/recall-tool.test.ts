import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { handleRecall, recallTool } from '../recall/index.js';
import { createCompactionMiddleware } from './compaction-middleware.js';

const STEPS = 16;
const BIG_FILE_STEP = 6;

function result(content: LanguageModelV3GenerateResult['content']): LanguageModelV3GenerateResult {
  return {
    content,
    finishReason: { unified: content[0]?.type === 'tool-call' ? 'tool-calls' : 'stop', raw: undefined },
    usage: {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    },
    warnings: [],
  };
}

const call = (id: string, toolName: string, input: object) =>
  result([{ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) }]);

/**
 * Reads a file each step (one big one that passes the hard threshold); once a prompt names an
 * archive id and the model has `recall`, calls it once with that id; then ends.
 */
function scriptedModel() {
  let recalled = false;
  let step = -1;
  return new MockLanguageModelV3({
    doGenerate: async (options: LanguageModelV3CallOptions) => {
      step += 1;
      const id = /recall (r\d+)/.exec(JSON.stringify(options.prompt))?.[1];
      const hasRecall = options.tools?.some((offered) => offered.name === 'recall') ?? false;
      if (id && hasRecall && !recalled) {
        recalled = true;
        return call(`recall_${step}`, 'recall', { id });
      }
      if (step >= STEPS - 1) return result([{ type: 'text', text: 'Done.' }]);
      const path = step === BIG_FILE_STEP ? 'src/big.ts' : `src/file-${step}.ts`;
      return call(`call_${step}`, 'read_file', { path });
    },
  });
}

const readFile = tool({
  inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
  execute: async ({ path }) =>
    `// ${path}\n${'export const value = compute(input, options);\n'.repeat(path.includes('big') ? 600 : 20)}`,
});

const options = {
  thresholds: { mid: 3000, hard: 5000 },
  micro: { cacheAware: false, keepTurns: 2, minTokens: 50 },
  conversationId: () => 'chat-1',
};

describe('the middleware and the recall tool', () => {
  it('names no archive id and no recall tool to a model that has none', async () => {
    const model = scriptedModel();
    const middleware = createCompactionMiddleware(options);
    await generateText({
      model: wrapLanguageModel({ model, middleware }),
      prompt: 'Read every file in src/.',
      tools: { read_file: readFile },
      stopWhen: stepCountIs(STEPS),
    });
    const prompts = model.doGenerateCalls.map((generate) => JSON.stringify(generate.prompt));
    expect(prompts.at(-1)).toContain('<context_summary');
    expect(prompts.at(-1)).toContain('[Previous: used read_file');
    for (const prompt of prompts) {
      expect(prompt).not.toMatch(/\br\d+\b/);
      expect(prompt).not.toContain('recall tool');
    }
  });

  it('names them where the call offers recall, and the tool of docs/sdk-adapters.md brings the original back', async () => {
    const model = scriptedModel();
    const middleware = createCompactionMiddleware(options);
    const recall = tool({
      description: recallTool.description,
      // `required` copied: the core's schema is readonly, JSONSchema7's arrays are not.
      inputSchema: jsonSchema<{ id: string }>({
        ...recallTool.inputSchema,
        required: [...recallTool.inputSchema.required],
      }),
      execute: async (input) => {
        const compactor = middleware.compactorFor('chat-1');
        return compactor ? handleRecall(compactor, input) : 'nothing is archived yet';
      },
    });
    await generateText({
      model: wrapLanguageModel({ model, middleware }),
      prompt: 'Read every file in src/.',
      tools: { read_file: readFile, recall },
      stopWhen: stepCountIs(STEPS),
    });
    const prompts = model.doGenerateCalls.map((generate) => JSON.stringify(generate.prompt));
    expect(prompts.some((prompt) => /recall r\d+/.test(prompt))).toBe(true);
    expect(prompts.some((prompt) => prompt.includes('recall tool by id'))).toBe(true);
    // The recall call's result, in the prompt after it, is an archived file's original text.
    const afterRecall = model.doGenerateCalls.findIndex((generate) =>
      JSON.stringify(generate.prompt).includes('"toolName":"recall"'),
    );
    expect(afterRecall).toBeGreaterThan(0);
    const recalledResult = model.doGenerateCalls[afterRecall]?.prompt
      .flatMap((message) => (message.role === 'tool' ? message.content : []))
      .find((part) => part.type === 'tool-result' && part.toolName === 'recall');
    expect(JSON.stringify(recalledResult)).toMatch(/\/\/ src\/(big|file-\d+)\.ts\\nexport const value/);
  });
});
