/**
 * The CLI's `--summarizer NAME:MODEL` specs, one per wire format: the name, the SDK adapter it
 * loads and how, and the key it reads. The `Record` type makes the compiler name a format left out.
 */

import type { SummaryModel } from 'agent-compact';
import type { WireFormat } from 'agent-compact/wire';

/** What every adapter's factory takes from the CLI. */
export interface SpecModelOptions {
  model: string;
  apiKey: string;
  baseURL?: string;
  timeoutMs?: number;
  maxRetries?: number;
}

/** One `--summarizer` spec. */
export interface SummarizerSpec {
  /** The name before the colon, e.g. `openai-responses`. */
  readonly name: string;
  /** The SDK adapter subpath the spec loads (several specs may share one). */
  readonly adapter: 'anthropic' | 'openai' | 'gemini';
  /** The SDK package that adapter needs. */
  readonly sdkPackage: string;
  /** The environment variable the key is read from. */
  readonly keyName: string;
  /** An example spec for the error that asks for a model. */
  readonly example: string;
  /** The summary model from the loaded adapter module. */
  create(adapter: unknown, options: SpecModelOptions): SummaryModel;
}

type AnthropicAdapter = typeof import('agent-compact/anthropic');
type OpenAIAdapter = typeof import('agent-compact/openai');
type GeminiAdapter = typeof import('agent-compact/gemini');

/** Every spec, by the format its adapter speaks. */
export const summarizerSpecs: Readonly<Record<WireFormat, SummarizerSpec>> = {
  anthropic: {
    name: 'anthropic',
    adapter: 'anthropic',
    sdkPackage: '@anthropic-ai/sdk',
    keyName: 'ANTHROPIC_API_KEY',
    example: 'anthropic:claude-haiku-4-5',
    create: (adapter, options) => (adapter as AnthropicAdapter).createAnthropicSummaryModel(options),
  },
  openai: {
    name: 'openai',
    adapter: 'openai',
    sdkPackage: 'openai',
    keyName: 'OPENAI_API_KEY',
    example: 'openai:gpt-5-mini',
    create: (adapter, options) => (adapter as OpenAIAdapter).createOpenAISummaryModel(options),
  },
  // The OpenAI adapter over the Responses API.
  responses: {
    name: 'openai-responses',
    adapter: 'openai',
    sdkPackage: 'openai',
    keyName: 'OPENAI_API_KEY',
    example: 'openai-responses:gpt-5-mini',
    create: (adapter, options) =>
      (adapter as OpenAIAdapter).createOpenAISummaryModel({ ...options, api: 'responses' }),
  },
  gemini: {
    name: 'gemini',
    adapter: 'gemini',
    sdkPackage: '@google/genai',
    keyName: 'GEMINI_API_KEY',
    example: 'gemini:gemini-2.5-flash',
    create: (adapter, options) => (adapter as GeminiAdapter).createGeminiSummaryModel(options),
  },
};

/** Loads an adapter subpath, only when a spec asks for it (the CLI runs without the SDKs). */
export function importAdapter(adapter: SummarizerSpec['adapter']): Promise<unknown> {
  const loaders = {
    anthropic: () => import('agent-compact/anthropic'),
    openai: () => import('agent-compact/openai'),
    gemini: () => import('agent-compact/gemini'),
  } satisfies Record<SummarizerSpec['adapter'], () => Promise<unknown>>;
  return loaders[adapter]();
}

/** True when a local server at `--base-url` may go without a key (an OpenAI-compatible one). */
export function keyOptional(spec: SummarizerSpec, baseURL: string | undefined): boolean {
  // A local OpenAI-compatible server (Ollama, vLLM, llama.cpp) needs no key, but the SDK wants one.
  return spec === summarizerSpecs.openai && baseURL !== undefined;
}
