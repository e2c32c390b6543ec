// The installed `agent-compact/mastra` beside the current `@mastra/core` (Node 22.13+): an agent
// with the processor against the scripted server, where the setup has Mastra installed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { has, nodeRunsMastra, readingServer, readingTask, unansweredRequests } from './_support.mjs';

test('AgentCompactProcessor runs a Mastra agent through compaction', {
  skip: (!has('@mastra/core/agent') || !nodeRunsMastra()) && 'no @mastra/core here or Node < 22.13',
}, async (t) => {
  const { Agent } = await import('@mastra/core/agent');
  const { createTool } = await import('@mastra/core/tools');
  const { z } = await import('zod');
  const { AgentCompactProcessor } = await import('agent-compact/mastra');
  const server = await readingServer(t);
  const readFile = createTool({
    id: 'read_file',
    description: 'Read a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async () => readingTask.fileText,
  });
  const agent = new Agent({
    id: 'reader',
    name: 'reader',
    instructions: 'Read files.',
    model: { providerId: 'openai', modelId: 'gpt-test', url: server.openaiBaseURL, apiKey: 'k' },
    tools: { read_file: readFile },
    inputProcessors: [new AgentCompactProcessor({ contextWindow: readingTask.window })],
  });
  const result = await agent.generate(readingTask.prompt, { maxSteps: 30 });
  assert.equal(result.text, 'done');
  assert.deepEqual(unansweredRequests(server), []);
});
