// The installed `agent-compact/mastra` beside the current `@mastra/core` (Node 22.13+): an agent
// with the processor against the scripted server, where the setup has Mastra installed.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { scriptedServer } from './_support.mjs';

const hasMastra = (() => {
  try {
    createRequire(path.resolve('package.json')).resolve('@mastra/core/agent');
    return true;
  } catch {
    return false;
  }
})();
const [major, minor] = process.versions.node.split('.').map(Number);
const nodeOk = major > 22 || (major === 22 && minor >= 13);

test('AgentCompactProcessor runs a Mastra agent through compaction', {
  skip: (!hasMastra || !nodeOk) && 'no @mastra/core here or Node < 22.13',
}, async (t) => {
  const { Agent } = await import('@mastra/core/agent');
  const { createTool } = await import('@mastra/core/tools');
  const { z } = await import('zod');
  const { AgentCompactProcessor } = await import('agent-compact/mastra');
  const server = await scriptedServer(t, {
    contextWindow: 16_000,
    script: ({ index }) =>
      index < 20
        ? { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: `f${index}` } }] }
        : 'done',
  });
  const readFile = createTool({
    id: 'read_file',
    description: 'Read a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async () => 'const line = 1;\n'.repeat(300),
  });
  const agent = new Agent({
    id: 'reader',
    name: 'reader',
    instructions: 'Read files.',
    model: { providerId: 'openai', modelId: 'gpt-test', url: server.openaiBaseURL, apiKey: 'k' },
    tools: { read_file: readFile },
    inputProcessors: [new AgentCompactProcessor({ contextWindow: 16_000 })],
  });
  const result = await agent.generate('Read f0 to f19.', { maxSteps: 30 });
  assert.equal(result.text, 'done');
  assert.deepEqual(
    server.requests.filter((request) => !['tool-calls', 'text'].includes(request.outcome)),
    [],
  );
});
