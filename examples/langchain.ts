import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { agentCompactMiddleware } from 'agent-compact/langchain';
import { startScriptedModelServer } from '@agent-compact/testing';
import { createAgent } from 'langchain';

// A scripted model on 127.0.0.1 with a 16k window: 20 file reads, then an answer.
const server = await startScriptedModelServer({
  contextWindow: 16_000,
  script: ({ index }) =>
    index < 20 ? { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: `src/f${index}.ts` } }] } : 'Done.',
});
const readFile = tool(async () => 'export const line = 1;\n'.repeat(200), {
  name: 'read_file',
  description: 'Read a file',
  schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
});
const agent = createAgent({
  model: new ChatOpenAI({ model: 'gpt-test', apiKey: 'test-key', configuration: { baseURL: server.openaiBaseURL } }),
  tools: [readFile],
  middleware: [agentCompactMiddleware({ contextWindow: 16_000 })],
});
const state = await agent.invoke(
  { messages: [{ role: 'user', content: 'Read src/f0.ts to src/f19.ts.' }] },
  { recursionLimit: 100 },
);
console.log(state.messages.at(-1)?.content); // Done.
console.log(server.requests.every((request) => request.outcome !== 'prompt-too-long')); // true
await server.close();
