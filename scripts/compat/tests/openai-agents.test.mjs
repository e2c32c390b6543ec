// The installed `agent-compact/openai-agents` beside the current `@openai/agents`: a run with the
// filter against the scripted server, where the setup has the SDK installed.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { scriptedServer } from './_support.mjs';

const hasSdk = (() => {
  try {
    createRequire(path.resolve('package.json')).resolve('@openai/agents');
    return true;
  } catch {
    return false;
  }
})();

test('agentCompactFilter runs an Agents SDK agent through compaction', {
  skip: !hasSdk && 'no @openai/agents in this setup',
}, async (t) => {
  const { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } = await import('@openai/agents');
  const { default: OpenAI } = await import('openai');
  const { agentCompactFilter } = await import('agent-compact/openai-agents');
  setTracingDisabled(true);
  const server = await scriptedServer(t, {
    contextWindow: 16_000,
    script: ({ index }) =>
      index < 20
        ? { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: `f${index}` } }] }
        : 'done',
  });
  const readFile = tool({
    name: 'read_file',
    description: 'Read a file',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    },
    strict: true,
    execute: async () => 'const line = 1;\n'.repeat(300),
  });
  const agent = new Agent({
    name: 'reader',
    instructions: 'Read files.',
    model: new OpenAIResponsesModel(
      new OpenAI({ baseURL: server.openaiBaseURL, apiKey: 'k', maxRetries: 0 }),
      'gpt-test',
    ),
    tools: [readFile],
  });
  const result = await run(agent, 'Read f0 to f19.', {
    maxTurns: 30,
    callModelInputFilter: agentCompactFilter({ contextWindow: 16_000 }),
  });
  assert.equal(result.finalOutput, 'done');
  assert.deepEqual(
    server.requests.filter((request) => !['tool-calls', 'text'].includes(request.outcome)),
    [],
  );
});
