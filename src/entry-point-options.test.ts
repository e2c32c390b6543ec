// Every entry point that takes compactor or summary model options refuses one of the wrong shape
// where it is given, with INVALID_OPTIONS and the option's path (before: a TypeError, or a failure
// on the first call of each conversation).
import { describe, expect, it } from 'vitest';
import { createCompactionMiddleware } from './ai-sdk/index.js';
import { createAnthropicSummaryModel } from './anthropic/index.js';
import { CompactError } from './core/model/errors.js';
import { createGeminiSummaryModel } from './gemini/index.js';
import { agentCompactMiddleware } from './langchain/index.js';
import { createOpenAISummaryModel } from './openai/index.js';

function refusal(create: () => unknown): { code?: string; path?: string; message?: string } | undefined {
  try {
    create();
  } catch (error) {
    expect(CompactError.isInstance(error)).toBe(true);
    const { code, path, message } = error as CompactError;
    return { code, path: path ?? '', message };
  }
  return undefined;
}

describe('summary model factories', () => {
  const factories = {
    anthropic: createAnthropicSummaryModel,
    openai: createOpenAISummaryModel,
    gemini: createGeminiSummaryModel,
  } as Record<string, (options: unknown) => unknown>;

  it.each(Object.keys(factories))('%s: a missing, empty or non-string model names `model`', (name) => {
    const create = factories[name]!;
    for (const model of [undefined, '', 42])
      expect(refusal(() => create({ model, apiKey: 'test' }))).toMatchObject({
        code: 'INVALID_OPTIONS',
        path: 'model',
      });
  });

  it.each(Object.keys(factories))('%s: maxTokens and the retry options must be numbers', (name) => {
    const create = factories[name]!;
    expect(refusal(() => create({ model: 'm', apiKey: 'test', maxTokens: 'big' }))).toMatchObject({
      path: 'maxTokens',
    });
    expect(refusal(() => create({ model: 'm', apiKey: 'test', maxRetries: -1 }))).toMatchObject({
      path: 'maxRetries',
    });
    expect(refusal(() => create({ model: 'm', apiKey: 'test', timeoutMs: 0 }))).toMatchObject({
      path: 'timeoutMs',
    });
    expect(refusal(() => create({ model: 'm', apiKey: 'test', maxTokens: 2000 }))).toBeUndefined();
  });
});

describe('framework adapters check the compactor options when they are made', () => {
  it('the AI SDK middleware', () => {
    expect(refusal(() => createCompactionMiddleware({ thresholds: { mid: 'x' as never } }))).toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'thresholds.mid',
    });
    expect(refusal(() => createCompactionMiddleware({ maxConversations: 0 }))).toMatchObject({
      path: 'maxConversations',
    });
    expect(refusal(() => createCompactionMiddleware({ contextWindow: 200_000 }))).toBeUndefined();
  });

  it('the LangChain middleware (and every adapter built on ConversationThreads)', () => {
    expect(refusal(() => agentCompactMiddleware({ counter: 'o200k' as never }))).toMatchObject({
      code: 'INVALID_OPTIONS',
      path: 'counter',
    });
    expect(refusal(() => agentCompactMiddleware({ onWarning: 'console' as never }))).toMatchObject({
      path: 'onWarning',
    });
    expect(refusal(() => agentCompactMiddleware({ contextWindow: 128_000 }))).toBeUndefined();
  });
});
