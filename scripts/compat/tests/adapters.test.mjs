// The OpenAI and Anthropic adapters over the installed SDKs, and the compactor with their
// summarizers, against the scripted server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { createCompactor } from 'agent-compact';
import { createAnthropicSummaryModel, toAnthropicParams } from 'agent-compact/anthropic';
import {
  createOpenAISummaryModel,
  fromChatCompletionMessages,
  toChatCompletionMessages,
} from 'agent-compact/openai';
import OpenAI from 'openai';
import { agentConversation, invalidRequests, scriptedServer } from './_support.mjs';

const summary = '## Task\nFix the failing parser test.\n## Done so far\nRead every file.';

test('OpenAI summary model: the compactor summarizes through the installed openai SDK', async (t) => {
  const server = await scriptedServer(t, { script: [summary] });
  const summarizer = createOpenAISummaryModel({
    model: 'small',
    apiKey: 'test-key',
    baseURL: server.openaiBaseURL,
  });
  const { system, messages } = agentConversation(30);
  const compactor = createCompactor({ thresholds: { mid: 10_000, hard: 20_000 }, summarizer });
  const result = await compactor.maybeCompact(messages, { system });
  assert.equal(result.layer, 'hard');
  assert.match(JSON.stringify(result.messages), /Fix the failing parser test/);
  assert.equal(server.requests.length, 1);
  assert.equal(server.requests[0].body.model, 'small');
  assert.deepEqual(invalidRequests(server), []);
});

test('Anthropic summary model: the compactor summarizes through the installed Anthropic SDK', async (t) => {
  const server = await scriptedServer(t, { script: [summary] });
  const summarizer = createAnthropicSummaryModel({
    model: 'claude-small',
    apiKey: 'test-key',
    baseURL: server.anthropicBaseURL,
  });
  const { system, messages } = agentConversation(30);
  const compactor = createCompactor({ thresholds: { mid: 10_000, hard: 20_000 }, summarizer });
  const result = await compactor.maybeCompact(messages, { system });
  assert.equal(result.layer, 'hard');
  assert.match(JSON.stringify(result.messages), /Fix the failing parser test/);
  assert.equal(server.requests.length, 1);
  assert.deepEqual(invalidRequests(server), []);
});

test('compacted conversations go out through the SDK clients as valid requests', async (t) => {
  const server = await scriptedServer(t, { script: ['fine', 'fine'] });
  const { system, messages } = agentConversation(12);
  const compactor = createCompactor({
    thresholds: { mid: 4_000, hard: 60_000 },
    micro: { cacheAware: false },
  });
  const compacted = await compactor.maybeCompact(messages, { system });
  assert.notEqual(compacted.layer, 'none');
  const conversation = { system, messages: [...compacted.messages, { role: 'user', content: 'Go on.' }] };

  const openai = new OpenAI({ apiKey: 'test-key', baseURL: server.openaiBaseURL, maxRetries: 0 });
  const chatMessages = toChatCompletionMessages(conversation);
  const completion = await openai.chat.completions.create({ model: 'agent-model', messages: chatMessages });
  assert.equal(completion.choices[0].message.content, 'fine');
  assert.equal(fromChatCompletionMessages(chatMessages).messages.length, conversation.messages.length);

  const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: server.anthropicBaseURL, maxRetries: 0 });
  const message = await anthropic.messages.create({
    model: 'agent-model',
    max_tokens: 100,
    ...toAnthropicParams(conversation),
  });
  assert.equal(message.content[0].text, 'fine');
  assert.deepEqual(invalidRequests(server), []);
});
