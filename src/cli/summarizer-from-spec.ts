import type { SummaryModel } from 'agent-compact';
import { WIRE_FORMATS } from 'agent-compact/wire';
import { CliError } from './cli-io.js';
import {
  importAdapter as defaultImportAdapter,
  keyOptional,
  type SummarizerSpec,
  summarizerSpecs,
} from './wire/summarizer-specs.js';

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
  importAdapter?: (adapter: SummarizerSpec['adapter']) => Promise<unknown>;
}

/** Every spec, in the order the error message lists them. */
const specs = WIRE_FORMATS.map((format) => summarizerSpecs[format]);

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
  const name = colon === -1 ? trimmed : trimmed.slice(0, colon);
  const model = colon === -1 ? '' : trimmed.slice(colon + 1).trim();
  const found = specs.find((candidate) => candidate.name === name);
  if (!found) {
    const names = specs.map((candidate) => `${candidate.name}:MODEL`).join(', ');
    throw new CliError(`--summarizer "${spec}" is not one of ${names} or extractive`, 2);
  }
  if (model === '') {
    throw new CliError(`--summarizer ${name}: needs a model, e.g. ${found.example}`, 2);
  }
  const apiKey = env[found.keyName]?.trim() || undefined;
  if (apiKey === undefined && !keyOptional(found, baseURL)) {
    throw new CliError(
      `--summarizer ${name}:${model} needs an API key: set ${found.keyName} in the environment`,
      2,
    );
  }
  const adapter = await loadAdapter(found, importAdapter);
  return found.create(adapter, {
    model,
    apiKey: apiKey ?? 'no-key',
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxRetries === undefined ? {} : { maxRetries }),
  });
}

async function loadAdapter(
  spec: SummarizerSpec,
  importAdapter: (adapter: SummarizerSpec['adapter']) => Promise<unknown>,
): Promise<unknown> {
  try {
    return await importAdapter(spec.adapter);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const packageName = spec.sdkPackage;
    const provider = spec.adapter;
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
