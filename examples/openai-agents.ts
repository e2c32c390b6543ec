import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { agentCompactFilter } from 'agent-compact/openai-agents';
import { startScriptedModelServer } from '@agent-compact/testing';

// A scripted model on 127.0.0.1 with a 16k window: 20 file reads, then an answer.
const server = await startScriptedModelServer({
  contextWindow: 16_000,
  script: ({ index }) =>
    index < 20 ? { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: `src/f${index}.ts` } }] } : 'Done.',
});
setTracingDisabled(true);
const readFile = tool({
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  strict: true,
  execute: async () => 'export const line = 1;\n'.repeat(200),
});
const runner = new Runner({
  modelProvider: new OpenAIProvider({ baseURL: server.openaiBaseURL, apiKey: 'test-key', useResponses: true }),
});
const agent = new Agent({ name: 'reader', instructions: 'You read files.', model: 'gpt-test', tools: [readFile] });
const result = await runner.run(agent, 'Read src/f0.ts to src/f19.ts.', {
  maxTurns: 30,
  callModelInputFilter: agentCompactFilter({ contextWindow: 16_000 }),
});
console.log(result.finalOutput); // Done.
console.log(server.requests.every((request) => request.outcome !== 'prompt-too-long')); // true
await server.close();
