import { afterEach, describe, expect, it } from 'vitest';
import { CompactError } from '../core/model/errors.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/scripted-model-server.js';
import { CliError } from './cli-io.js';
import { createSummaryModelFromSpec } from './summarizer-from-spec.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const request = {
  messages: [
    { role: 'user' as const, content: 'Fix the bug.' },
    { role: 'assistant' as const, content: 'Fixed.' },
    { role: 'user' as const, content: 'Summarize.' },
  ],
  maxOutputTokens: 100,
};

async function cliError(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof CliError)) throw new Error(`expected a CliError, got ${String(error)}`);
  return error;
}

describe('createSummaryModelFromSpec', () => {
  it('returns undefined for extractive, meaning the offline default', async () => {
    await expect(createSummaryModelFromSpec('extractive', { env: {} })).resolves.toBeUndefined();
  });

  it.each([
    ['anthropic', 'ANTHROPIC_API_KEY'],
    ['openai', 'OPENAI_API_KEY'],
    ['openai-responses', 'OPENAI_API_KEY'],
    ['gemini', 'GEMINI_API_KEY'],
  ] as const)('%s: builds a working model with the key from the environment', async (provider, keyName) => {
    server = await startScriptedModelServer({ script: [`summary from ${provider}`] });
    const baseURL = {
      anthropic: server.anthropicBaseURL,
      openai: server.openaiBaseURL,
      'openai-responses': server.openaiBaseURL,
      gemini: server.geminiBaseURL,
    }[provider];
    const model = await createSummaryModelFromSpec(`${provider}:small-model`, {
      baseURL,
      env: { [keyName]: 'k' },
    });
    expect(model).toMatchObject({ provider, modelId: 'small-model' });
    await expect(model?.summarize(request)).resolves.toMatchObject({ text: `summary from ${provider}` });
    const path = {
      anthropic: '/v1/messages',
      openai: '/v1/chat/completions',
      'openai-responses': '/v1/responses',
      gemini: '/v1beta/models/small-model:generateContent',
    };
    expect(server.requests[0]?.path).toBe(path[provider]);
  });

  it('keeps colons in the model id and needs no key for an OpenAI-compatible server', async () => {
    server = await startScriptedModelServer({ script: ['ok'] });
    const model = await createSummaryModelFromSpec('openai:qwen3:8b', {
      baseURL: server.openaiBaseURL,
      env: {},
    });
    expect(model?.modelId).toBe('qwen3:8b');
    await model?.summarize(request);
    expect(server.requests[0]?.body.model).toBe('qwen3:8b');
  });

  it.each([
    ['anthropic:claude-haiku-4-5', {}, 'set ANTHROPIC_API_KEY'],
    ['openai:gpt-5-mini', {}, 'set OPENAI_API_KEY'],
    ['anthropic:', { ANTHROPIC_API_KEY: 'k' }, 'needs a model'],
    ['gemini:gemini-2.5-flash', {}, 'set GEMINI_API_KEY'],
    [
      'vertex:pro',
      {},
      'is not one of anthropic:MODEL, openai:MODEL, openai-responses:MODEL, gemini:MODEL or extractive',
    ],
  ])('%s fails as one line with exit code 2', async (spec, env, message) => {
    const error = await cliError(createSummaryModelFromSpec(spec, { env }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('\n');
  });

  it('says which package to install when the SDK is missing', async () => {
    const missing = Object.assign(new Error("Cannot find package '@anthropic-ai/sdk'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const error = await cliError(
      createSummaryModelFromSpec('anthropic:claude-haiku-4-5', {
        env: { ANTHROPIC_API_KEY: 'k' },
        importAdapter: () => Promise.reject(missing),
      }),
    );
    expect(error).toMatchObject({
      exitCode: 2,
      message:
        '--summarizer anthropic: needs the @anthropic-ai/sdk package, which is not installed (npm install @anthropic-ai/sdk)',
    });
  });

  it('passes the timeout on, so an unreachable server fails fast with SUMMARY_FAILED', async () => {
    server = await startScriptedModelServer({
      script: [{ type: 'hang' }, { type: 'hang' }],
    });
    const model = await createSummaryModelFromSpec('anthropic:m', {
      baseURL: server.anthropicBaseURL,
      env: { ANTHROPIC_API_KEY: 'k' },
      timeoutMs: 50,
      maxRetries: 1,
    });
    const error = await model?.summarize(request).catch((caught: unknown) => caught);
    expect(CompactError.isInstance(error) && error.code).toBe('SUMMARY_FAILED');
  });
});
