// The installed `agent-compact/langchain` beside the current `langchain`: a createAgent run with the
// middleware against the scripted server, where the setup has LangChain installed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { has, readingServer, readingTask, unansweredRequests } from './_support.mjs';

test('agentCompactMiddleware runs a LangChain agent through compaction', {
  skip: !has('langchain') && 'no langchain in this setup',
}, async (t) => {
  const { createAgent } = await import('langchain');
  const { tool } = await import('@langchain/core/tools');
  const { ChatOpenAI } = await import('@langchain/openai');
  const { agentCompactMiddleware } = await import('agent-compact/langchain');
  const server = await readingServer(t);
  const readFile = tool(async () => readingTask.fileText, {
    name: 'read_file',
    description: 'Read a file',
    schema: readingTask.parameters,
  });
  const agent = createAgent({
    model: new ChatOpenAI({
      model: 'gpt-test',
      apiKey: 'k',
      maxRetries: 0,
      configuration: { baseURL: server.openaiBaseURL },
    }),
    tools: [readFile],
    middleware: [agentCompactMiddleware({ contextWindow: readingTask.window })],
  });
  const state = await agent.invoke(
    { messages: [{ role: 'user', content: readingTask.prompt }] },
    { recursionLimit: 100 },
  );
  assert.equal(state.messages.at(-1).content, 'done');
  assert.deepEqual(unansweredRequests(server), []);
});
