// The installed `agent-compact/openai-agents` beside the current `@openai/agents`: a run with the
// filter against the scripted server, where the setup has the SDK installed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { has, readingServer, readingTask, unansweredRequests } from './_support.mjs';

test('agentCompactFilter runs an Agents SDK agent through compaction', {
  skip: !has('@openai/agents') && 'no @openai/agents in this setup',
}, async (t) => {
  const { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } = await import('@openai/agents');
  const { default: OpenAI } = await import('openai');
  const { agentCompactFilter } = await import('agent-compact/openai-agents');
  setTracingDisabled(true);
  const server = await readingServer(t);
  const readFile = tool({
    name: 'read_file',
    description: 'Read a file',
    parameters: { ...readingTask.parameters, additionalProperties: false },
    strict: true,
    execute: async () => readingTask.fileText,
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
  const result = await run(agent, readingTask.prompt, {
    maxTurns: 30,
    callModelInputFilter: agentCompactFilter({ contextWindow: readingTask.window }),
  });
  assert.equal(result.finalOutput, 'done');
  assert.deepEqual(unansweredRequests(server), []);
});
