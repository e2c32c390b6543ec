/**
 * The reference agent's `--provider` choices, one per wire format: the name, the defaults, the
 * environment it reads and the chat model it loads. The `Record` type makes the compiler name a
 * format left out.
 */

import type { WireFormat } from 'agent-compact/wire';
import type { ChatModel } from '../../agent/chat-model.js';

/** What every chat model factory takes from the CLI. */
export interface AgentModelOptions {
  model: string;
  apiKey: string;
  baseURL?: string;
}

/** One `--provider` choice. */
export interface AgentProvider {
  /** The `--provider` value, also kept in a session's info. */
  readonly name: string;
  /** The model when `--model` is not given. */
  readonly model: string;
  /** The context window when `--window` is not given. */
  readonly window: number;
  /** The environment variable the key is read from. */
  readonly keyVariable: string;
  /** The environment variable the base URL is read from when `--base-url` is not given. */
  readonly baseUrlVariable: string;
  /** The chat model, its SDK loaded on first use. */
  create(options: AgentModelOptions): Promise<ChatModel>;
}

/** Every provider, by the format it speaks. */
export const agentProviders: Readonly<Record<WireFormat, AgentProvider>> = {
  anthropic: {
    name: 'anthropic',
    model: 'claude-sonnet-5-5',
    window: 200_000,
    keyVariable: 'ANTHROPIC_API_KEY',
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    create: async (options) =>
      (await import('../../agent/wire/anthropic/anthropic-chat-model.js')).createAnthropicChatModel(options),
  },
  openai: {
    name: 'openai',
    model: 'gpt-5.4',
    window: 128_000,
    keyVariable: 'OPENAI_API_KEY',
    baseUrlVariable: 'OPENAI_BASE_URL',
    create: async (options) =>
      (await import('../../agent/wire/openai-chat/openai-chat-model.js')).createOpenAIChatModel(options),
  },
  responses: {
    name: 'openai-responses',
    model: 'gpt-5.4',
    window: 128_000,
    keyVariable: 'OPENAI_API_KEY',
    baseUrlVariable: 'OPENAI_BASE_URL',
    create: async (options) =>
      (
        await import('../../agent/wire/responses/openai-responses-chat-model.js')
      ).createOpenAIResponsesChatModel(options),
  },
  gemini: {
    name: 'gemini',
    model: 'gemini-2.5-pro',
    window: 1_000_000,
    keyVariable: 'GEMINI_API_KEY',
    // The agent's Gemini client has always read the OpenAI variable; kept as it was.
    baseUrlVariable: 'OPENAI_BASE_URL',
    create: async (options) =>
      (await import('../../agent/wire/gemini/gemini-chat-model.js')).createGeminiChatModel(options),
  },
};

/** The provider when neither `--provider` nor a resumed session names one. */
export const defaultAgentProvider: AgentProvider = agentProviders.anthropic;
