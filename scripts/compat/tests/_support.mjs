// Shared by the compatibility tests: a scripted server per test, and a long agent conversation.
import { startScriptedModelServer } from 'agent-compact/testing';

/** Starts a scripted model server on 127.0.0.1 and closes it when the test ends. */
export async function scriptedServer(test, options) {
  const server = await startScriptedModelServer(options);
  test.after(() => server.close());
  return server;
}

/** An agent conversation of `turns` tool calls whose results are `lines` lines long each. */
export function agentConversation(turns, lines = 200) {
  const messages = [{ role: 'user', content: 'Read every file in src/ and fix the failing test.' }];
  for (let index = 0; index < turns; index += 1) {
    const id = `toolu_${index}`;
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'read_file', input: { path: `src/file-${index}.ts` } }],
    });
    messages.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: id,
          content: `// src/file-${index}.ts\n${'export const value = compute(input, options);\n'.repeat(lines)}`,
        },
      ],
    });
  }
  messages.push({ role: 'assistant', content: 'All files read; the parser test fails.' });
  return { system: 'You are a coding agent.', messages };
}

/** A file-reading tool for the AI SDK, built with the installed `ai`. */
export function readFileTool({ tool, jsonSchema }) {
  return tool({
    description: 'Reads a file',
    inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }) =>
      `// ${path}\n${'export const value = compute(input, options);\n'.repeat(path.includes('big') ? 600 : 20)}`,
  });
}

/** The requests the server rejected as invalid for the provider: none, in a passing test. */
export function invalidRequests(server) {
  return server.requests.filter((request) => request.outcome === 'invalid-request');
}
