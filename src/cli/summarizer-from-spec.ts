import type { SummaryModel } from '../core/summary/summary-model.js';
import { CliError } from './cli-io.js';

/** Options of {@link createSummaryModelFromSpec}. */
export interface SummarizerSpecOptions {
  /** The `--base-url` flag: a proxy, an OpenAI-compatible server, or the scripted test server. */
  baseURL?: string;
  /** Where API keys are read from (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`). */
  env: Record<string, string | undefined>;
  /** Each summary try is aborted after this many milliseconds. @default the adapter's default */
  timeoutMs?: number;
  /** Retries after the first try. @default the adapter's default */
  maxRetries?: number;
  /**
   * Loads an adapter subpath; tests replace it to simulate an SDK that is not installed.
   * @default dynamic `import()`
   */
  importAdapter?: (provider: 'anthropic' | 'openai' | 'gemini') => Promise<unknown>;
}

/** The SDK package each provider needs. */
const sdkPackages = { anthropic: '@anthropic-ai/sdk', openai: 'openai', gemini: '@google/genai' } as const;

/** An SDK adapter the CLI can load. */
type SdkProvider = keyof typeof sdkPackages;

/**
 * Turns the CLI's `--summarizer` value into a {@link SummaryModel}: `anthropic:MODEL`,
 * `openai:MODEL` (everything after the first colon is the model, so `openai:qwen3:8b` works),
 * `openai-responses:MODEL` (the OpenAI adapter over the Responses API), or
 * `extractive`, which returns `undefined` — the core's offline default. Keys come from
 * `ANTHROPIC_API_KEY` / `OPENAI_API_KEY`; with `baseURL`, an OpenAI-compatible server needs no key.
 * The SDK adapters are loaded only when asked for, so the CLI runs without the SDKs installed.
 *
 * @throws {CliError} exit code 2 for an unknown spec, a missing key or a missing SDK, as one line.
 * @example
 * const summarizer = await createSummaryModelFromSpec('anthropic:claude-haiku-4-5', { env: process.env });
 * const compactor = createCompactor({ summarizer });
 */
export async function createSummaryModelFromSpec(
  spec: string,
  { baseURL, env, timeoutMs, maxRetries, importAdapter = defaultImportAdapter }: SummarizerSpecOptions,
): Promise<SummaryModel | undefined> {
  const trimmed = spec.trim();
  if (trimmed === 'extractive') return undefined;
  const colon = trimmed.indexOf(':');
  const provider = colon === -1 ? trimmed : trimmed.slice(0, colon);
  const model = colon === -1 ? '' : trimmed.slice(colon + 1).trim();
  if (
    provider !== 'anthropic' &&
    provider !== 'openai' &&
    provider !== 'openai-responses' &&
    provider !== 'gemini'
  ) {
    throw new CliError(
      `--summarizer "${spec}" is not one of anthropic:MODEL, openai:MODEL, openai-responses:MODEL, gemini:MODEL or extractive`,
      2,
    );
  }
  // `openai-responses` is the OpenAI adapter over the Responses API.
  const sdkProvider: SdkProvider = provider === 'openai-responses' ? 'openai' : provider;
  if (model === '') {
    throw new CliError(`--summarizer ${provider}: needs a model, e.g. ${exampleSpec(provider)}`, 2);
  }
  const keyName = keyNames[sdkProvider];
  const apiKey = env[keyName]?.trim() || undefined;
  // A local OpenAI-compatible server (Ollama, vLLM, llama.cpp) needs no key, but the SDK wants one.
  const keyOptional = sdkProvider === 'openai' && baseURL !== undefined;
  if (apiKey === undefined && !keyOptional) {
    throw new CliError(
      `--summarizer ${provider}:${model} needs an API key: set ${keyName} in the environment`,
      2,
    );
  }
  const adapter = await loadAdapter(sdkProvider, importAdapter);
  const options = {
    model,
    apiKey: apiKey ?? 'no-key',
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxRetries === undefined ? {} : { maxRetries }),
  };
  switch (provider) {
    case 'anthropic':
      return (adapter as typeof import('../anthropic/index.js')).createAnthropicSummaryModel(options);
    case 'openai':
      return (adapter as typeof import('../openai/index.js')).createOpenAISummaryModel(options);
    case 'openai-responses':
      return (adapter as typeof import('../openai/index.js')).createOpenAISummaryModel({
        ...options,
        api: 'responses',
      });
    case 'gemini':
      return (adapter as typeof import('../gemini/index.js')).createGeminiSummaryModel(options);
    default: {
      const unreachable: never = provider;
      throw new CliError(`unknown provider ${String(unreachable)}`, 2);
    }
  }
}

/** The environment variable each SDK reads its key from. */
const keyNames = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  gemini: 'GEMINI_API_KEY',
} as const;

function exampleSpec(provider: 'anthropic' | 'openai' | 'openai-responses' | 'gemini'): string {
  if (provider === 'gemini') return 'gemini:gemini-2.5-flash';
  return provider === 'anthropic' ? 'anthropic:claude-haiku-4-5' : `${provider}:gpt-5-mini`;
}

function defaultImportAdapter(provider: SdkProvider): Promise<unknown> {
  switch (provider) {
    case 'anthropic':
      return import('../anthropic/index.js');
    case 'openai':
      return import('../openai/index.js');
    case 'gemini':
      return import('../gemini/index.js');
    default: {
      const unreachable: never = provider;
      return Promise.reject(new Error(`unknown provider ${String(unreachable)}`));
    }
  }
}

async function loadAdapter(
  provider: SdkProvider,
  importAdapter: (provider: SdkProvider) => Promise<unknown>,
): Promise<unknown> {
  try {
    return await importAdapter(provider);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const packageName = sdkPackages[provider];
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new CliError(
        `--summarizer ${provider}: needs the ${packageName} package, which is not installed (npm install ${packageName})`,
        2,
      );
    }
    throw new CliError(
      `--summarizer ${provider}: could not load ${packageName}: ${error instanceof Error ? error.message : String(error)}`,
      2,
    );
  }
}
