// Shared by the compatibility tests: a scripted server per test, a long agent conversation, the
// framework tests' 20-read task, and what the setup has installed.
import { createRequire } from 'node:module';
import path from 'node:path';
import { startScriptedModelServer } from '@agent-compact/testing';

/** Whether the setup has `specifier` installed (resolved from the setup's project). */
export function has(specifier) {
  try {
    createRequire(path.resolve('package.json')).resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

/** Mastra 1.x needs Node 22.13 or later. */
export function nodeRunsMastra() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 13);
}

/** The framework tests' task: 20 `read_file` calls (f0 … f19), then `done`, on a 16k window. */
export const readingTask = {
  prompt: 'Read f0 to f19.',
  window: 16_000,
  answer: 'done',
  /** What each read returns: 20 of them do not fit the window whole. */
  fileText: 'const line = 1;\n'.repeat(300),
  /** The `read_file` tool's input schema, as JSON Schema. */
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

/** A scripted server (closed when the test ends) that plays the model of {@link readingTask}. */
export function readingServer(test) {
  return scriptedServer(test, {
    contextWindow: readingTask.window,
    script: ({ index }) =>
      index < 20
        ? { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: `f${index}` } }] }
        : readingTask.answer,
  });
}

/** The requests the server answered with anything but text or tool calls: none in a passing run. */
export function unansweredRequests(server) {
  return server.requests.filter((request) => !['tool-calls', 'text'].includes(request.outcome));
}

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
