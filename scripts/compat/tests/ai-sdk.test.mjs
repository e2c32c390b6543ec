// The AI SDK middleware in the installed `ai` (6 or 7): its own mock model, and the real OpenAI
// and Anthropic providers speaking HTTP to the scripted server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createCompactionMiddleware } from 'agent-compact/ai-sdk';
import { createOpenAISummaryModel } from 'agent-compact/openai';
import * as ai from 'ai';
import * as aiTest from 'ai/test';
import { invalidRequests, readFileTool, scriptedServer } from './_support.mjs';

const { generateText, streamText, wrapLanguageModel } = ai;
const stepCountIs = ai.stepCountIs ?? ai.isStepCount;
// ai 7 ships MockLanguageModelV4; ai 6 only MockLanguageModelV3.
const MockLanguageModel = aiTest.MockLanguageModelV4 ?? aiTest.MockLanguageModelV3;
const specificationVersion = aiTest.MockLanguageModelV4 ? 'v4' : 'v3';
const thresholds = { mid: 3000, hard: 5000 };
const micro = { cacheAware: false, keepTurns: 2, minTokens: 50 };

const noUsage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

function mockResponses(steps) {
  const call = (index) => ({
    content: [
      {
        type: 'tool-call',
        toolCallId: `call_${index}`,
        toolName: 'read_file',
        input: JSON.stringify({ path: index === 6 ? 'src/big.ts' : `src/file-${index}.ts` }),
      },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: noUsage,
    warnings: [],
  });
  const answer = {
    content: [{ type: 'text', text: 'All files read.' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: noUsage,
    warnings: [],
  };
  return [...Array.from({ length: steps - 1 }, (_, index) => call(index)), answer];
}

test(`middleware (${specificationVersion}) compacts a generateText tool loop with the SDK's mock model`, async () => {
  const steps = 16;
  const model = new MockLanguageModel({ doGenerate: mockResponses(steps) });
  const events = [];
  const middleware = createCompactionMiddleware({
    specificationVersion,
    thresholds,
    micro,
    onEvent: (event) => events.push(event),
  });
  assert.equal(middleware.specificationVersion, specificationVersion);
  const result = await generateText({
    model: wrapLanguageModel({ model, middleware }),
    system: 'You are a coding agent.',
    prompt: 'Read every file in src/.',
    tools: { read_file: readFileTool(ai) },
    stopWhen: stepCountIs(steps),
  });
  assert.equal(result.text, 'All files read.');
  assert.equal(model.doGenerateCalls.length, steps);
  assert.match(JSON.stringify(model.doGenerateCalls.at(-1).prompt), /<context_summary/);
  const hardRuns = events.filter((event) => event.type === 'compaction-end' && event.layer === 'hard');
  assert.equal(hardRuns.length, 1);
});

test('middleware with the real OpenAI provider: every request valid, one model summary', async (t) => {
  const steps = 14;
  let agentCalls = 0;
  const server = await scriptedServer(t, {
    script: (request) => {
      if (!request.body.tools) return '## Task\nRead the files.\n## Done so far\nRead several files.';
      agentCalls += 1;
      if (agentCalls >= steps) return 'Finished reading.';
      const path = agentCalls === 6 ? 'src/big.ts' : `src/file-${agentCalls}.ts`;
      return { type: 'tool-calls', calls: [{ name: 'read_file', input: { path } }] };
    },
  });
  const provider = createOpenAI({ apiKey: 'test-key', baseURL: server.openaiBaseURL });
  const summarizer = createOpenAISummaryModel({
    model: 'small',
    apiKey: 'test-key',
    baseURL: server.openaiBaseURL,
  });
  const middleware = createCompactionMiddleware({ thresholds, micro, summarizer });
  const result = await generateText({
    model: wrapLanguageModel({ model: provider.chat('agent-model'), middleware }),
    system: 'You are a coding agent.',
    prompt: 'Read every file in src/.',
    tools: { read_file: readFileTool(ai) },
    stopWhen: stepCountIs(steps),
  });
  assert.equal(result.text, 'Finished reading.');
  assert.deepEqual(invalidRequests(server), []);
  const summaries = server.requests.filter((request) => !request.body.tools);
  assert.equal(summaries.length, 1);
  const agentRequests = server.requests.filter((request) => request.body.tools);
  assert.match(JSON.stringify(agentRequests.at(-1).body), /Read several files\./);
});

test('middleware with the real Anthropic provider, streamed: every request valid, masked results reach the server', async (t) => {
  const steps = 10;
  let agentCalls = 0;
  const server = await scriptedServer(t, {
    script: () => {
      agentCalls += 1;
      if (agentCalls >= steps) return 'Finished reading.';
      return {
        type: 'tool-calls',
        calls: [{ name: 'read_file', input: { path: `src/file-${agentCalls}.ts` } }],
      };
    },
  });
  const provider = createAnthropic({ apiKey: 'test-key', baseURL: `${server.anthropicBaseURL}/v1` });
  const events = [];
  const middleware = createCompactionMiddleware({
    thresholds,
    micro,
    onEvent: (event) => events.push(event),
  });
  const result = streamText({
    model: wrapLanguageModel({ model: provider('agent-model'), middleware }),
    maxOutputTokens: 1000,
    system: 'You are a coding agent.',
    prompt: 'Read every file in src/.',
    tools: { read_file: readFileTool(ai) },
    stopWhen: stepCountIs(steps),
  });
  assert.equal(await result.text, 'Finished reading.');
  assert.equal(server.requests.length, steps);
  assert.ok(server.requests.every((request) => request.stream));
  assert.deepEqual(invalidRequests(server), []);
  assert.ok(events.some((event) => event.type === 'compaction-end' && event.layer === 'micro'));
  assert.match(JSON.stringify(server.requests.at(-1).body), /\[Previous: used read_file/);
});

test('middleware keeps one compactor per conversation', async () => {
  const answer = {
    content: [{ type: 'text', text: 'ok' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: noUsage,
    warnings: [],
  };
  const model = new MockLanguageModel({ doGenerate: [answer, answer] });
  const middleware = createCompactionMiddleware({ conversationId: (params) => params.headers?.['x-chat'] });
  const wrapped = wrapLanguageModel({ model, middleware });
  await generateText({ model: wrapped, prompt: 'one', headers: { 'x-chat': 'first' } });
  await generateText({ model: wrapped, prompt: 'two', headers: { 'x-chat': 'second' } });
  assert.equal(middleware.compactorFor('first')?.sessionId, 'first');
  assert.equal(middleware.compactorFor('second')?.sessionId, 'second');
});
