// Mastra 1.x needs Node 22.13 or later.
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { AgentCompactProcessor } from 'agent-compact/mastra';
import { startScriptedModelServer } from '@agent-compact/testing';
import { z } from 'zod';

// A scripted model on 127.0.0.1 with a 16k window: 20 file reads, then an answer.
const server = await startScriptedModelServer({
  contextWindow: 16_000,
  script: ({ index }) =>
    index < 20 ? { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: `src/f${index}.ts` } }] } : 'Done.',
});
const readFile = createTool({
  id: 'read_file',
  description: 'Read a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async () => 'export const line = 1;\n'.repeat(200),
});
const agent = new Agent({
  id: 'reader',
  name: 'reader',
  instructions: 'You read files.',
  model: { providerId: 'openai', modelId: 'gpt-test', url: server.openaiBaseURL, apiKey: 'test-key' },
  tools: { read_file: readFile },
  inputProcessors: [new AgentCompactProcessor({ contextWindow: 16_000 })],
});
const result = await agent.generate('Read src/f0.ts to src/f19.ts.', { maxSteps: 30 });
console.log(result.text); // Done.
console.log(server.requests.every((request) => request.outcome !== 'prompt-too-long')); // true
await server.close();
