// Type-checked by the compatibility suite in a project with ai 7, @ai-sdk/provider 4, openai 7 and
// the newest Anthropic SDK, with `skipLibCheck: false`: the installed package's declarations must
// compile against them, and fit where the SDKs ask for them.
import type { LanguageModelV4, LanguageModelV4Middleware } from '@ai-sdk/provider';
import Anthropic from '@anthropic-ai/sdk';
import { createCompactor, type Message } from 'agent-compact';
import { createCompactionMiddleware } from 'agent-compact/ai-sdk';
import { createAnthropicSummaryModel, toAnthropicParams } from 'agent-compact/anthropic';
import { createOpenAISummaryModel, toChatCompletionMessages } from 'agent-compact/openai';
import { createAnthropicChatModel, createOpenAIChatModel } from 'agent-compact-workspace/agent';
import { wrapLanguageModel } from 'ai';
import OpenAI from 'openai';

declare const baseModel: LanguageModelV4;
export const v4Middleware: LanguageModelV4Middleware = createCompactionMiddleware({
  specificationVersion: 'v4',
});
export const wrapped: LanguageModelV4 = wrapLanguageModel({
  model: baseModel,
  middleware: [createCompactionMiddleware(), v4Middleware],
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
