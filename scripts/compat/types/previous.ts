// Type-checked by the compatibility suite in a project with ai 6, @ai-sdk/provider 3, openai 6 and
// the oldest Anthropic SDK the peer range takes, with `skipLibCheck: false`: the installed
// package's declarations must compile against them, and fit where the SDKs ask for them.
import type { LanguageModelV3, LanguageModelV3Middleware } from '@ai-sdk/provider';
import Anthropic from '@anthropic-ai/sdk';
import { createCompactor, type Message } from 'agent-compact';
import { createCompactionMiddleware } from 'agent-compact/ai-sdk';
import { createAnthropicSummaryModel, toAnthropicParams } from 'agent-compact/anthropic';
import { createOpenAISummaryModel, toChatCompletionMessages } from 'agent-compact/openai';
import { createAnthropicChatModel, createOpenAIChatModel } from 'agent-compact-workspace/agent';
import { wrapLanguageModel } from 'ai';
import OpenAI from 'openai';

declare const baseModel: LanguageModelV3;
export const v3Middleware: LanguageModelV3Middleware = createCompactionMiddleware();
export const wrapped: LanguageModelV3 = wrapLanguageModel({
  model: baseModel,
  middleware: [createCompactionMiddleware(), v3Middleware],
});

const openai = new OpenAI({ apiKey: 'key' });
const anthropic = new Anthropic({ apiKey: 'key' });
export const summarizers = [
  createOpenAISummaryModel({ model: 'gpt', client: openai }),
  createAnthropicSummaryModel({ model: 'claude', client: anthropic }),
];
export const chatModels = [
  createOpenAIChatModel({ model: 'gpt', client: openai }),
  createAnthropicChatModel({ model: 'claude', client: anthropic }),
];
const messages: Message[] = [{ role: 'user', content: 'hello' }];
export const openaiMessages: OpenAI.ChatCompletionMessageParam[] = toChatCompletionMessages({ messages });
export const anthropicParams: Anthropic.MessageCreateParams = {
  model: 'claude',
  max_tokens: 10,
  ...toAnthropicParams({ messages }),
};
export const compactor = createCompactor({ summarizer: summarizers[0] });
