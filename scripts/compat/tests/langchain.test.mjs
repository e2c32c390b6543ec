// The installed `agent-compact/langchain` beside the current `langchain`: a createAgent run with the
// middleware against the scripted server, where the setup has LangChain installed.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { scriptedServer } from './_support.mjs';

const has = (name) => {
  try {
    createRequire(path.resolve('package.json')).resolve(name);
    return true;
  } catch {
    return false;
  }
};

test('agentCompactMiddleware runs a LangChain agent through compaction', {
  skip: !has('langchain') && 'no langchain in this setup',
}, async (t) => {
  const { createAgent } = await import('langchain');
  const { tool } = await import('@langchain/core/tools');
  const { ChatOpenAI } = await import('@langchain/openai');
  const { agentCompactMiddleware } = await import('agent-compact/langchain');
  const server = await scriptedServer(t, {
    contextWindow: 16_000,
    script: ({ index }) =>
      index < 20
        ? { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: `f${index}` } }] }
        : 'done',
  });
  const readFile = tool(async () => 'const line = 1;\n'.repeat(300), {
    name: 'read_file',
    description: 'Read a file',
    schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  });
  const agent = createAgent({
    model: new ChatOpenAI({
      model: 'gpt-test',
      apiKey: 'k',
      maxRetries: 0,
      configuration: { baseURL: server.openaiBaseURL },
    }),
    tools: [readFile],
    middleware: [agentCompactMiddleware({ contextWindow: 16_000 })],
  });
  const state = await agent.invoke(
    { messages: [{ role: 'user', content: 'Read f0 to f19.' }] },
    { recursionLimit: 100 },
  );
  assert.equal(state.messages.at(-1).content, 'done');
  assert.deepEqual(
    server.requests.filter((request) => !['tool-calls', 'text'].includes(request.outcome)),
    [],
  );
});
