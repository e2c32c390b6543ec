import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { expect, it } from 'vitest';
import { createCompactor } from '../core/compactor.js';
import type { Message, ProviderUsage, ToolResultBlock, ToolUseBlock } from '../core/model/messages.js';
import { startScriptedModelServer } from '../testing/index.js';
import { agentToolDefinitions, toAnthropicTool, toOpenAITool } from './tool-definitions.js';
import { createToolRunner } from './tool-runner.js';

// The loop docs/agent.md shows, run as written against the scripted server.
it('the README loop runs tools, compacts and answers', async () => {
  const workspace = await mkdtemp(path.join(tmpdir(), 'agent-readme-'));
  const server = await startScriptedModelServer({
    script: [
      { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: 'notes.txt' } }] },
      { type: 'tool-calls', calls: [{ name: 'compact', input: { focus: 'the answer' } }] },
      'The notes say hello.',
    ],
  });
  try {
    await writeFile(path.join(workspace, 'notes.txt'), `hello\n${'padding line\n'.repeat(3000)}`);
    const client = new Anthropic({ apiKey: 'test-key', baseURL: server.anthropicBaseURL });
    // --- from the README ---
    const compactor = createCompactor({ contextWindow: 200_000 });
    const tools = createToolRunner({ workspace, archive: compactor.archive, sessionId: compactor.sessionId });
    const system = `You are a coding agent. Your working directory is ${workspace}.`;
    let messages: Message[] = [{ role: 'user', content: 'What do the notes say?' }];
    let usage: ProviderUsage | undefined;
    let compactRequest: { focus?: string } | undefined; // set when the model calls `compact`
    for (let step = 0; step < 50; step++) {
      const force = compactRequest ? { force: 'hard' as const, focus: compactRequest.focus } : {};
      ({ messages } = await compactor.maybeCompact(messages, { system, usage, ...force }));
      compactRequest = undefined;
      const response = await client.messages.create({
        model: 'claude-sonnet-5-5',
        max_tokens: 8192,
        system,
        messages: messages as Anthropic.MessageParam[],
        tools: agentToolDefinitions.map(toAnthropicTool),
      });
      usage = response.usage;
      messages = [...messages, { role: 'assistant', content: response.content as Message['content'] }];
      const calls = response.content.filter((block) => block.type === 'tool_use') as ToolUseBlock[];
      if (calls.length === 0) break;
      const results: ToolResultBlock[] = [];
      for (const call of calls) {
        const run = await tools.run(call);
        results.push(run.result);
        compactRequest = run.compactRequest ?? compactRequest;
      }
      messages = [...messages, { role: 'user', content: results }];
    }
    // --- end ---
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ text: 'The notes say hello.' }] });
    expect(JSON.stringify(messages)).toContain('<context_summary');
    expect(server.requests.map((request) => request.outcome)).toEqual(['tool-calls', 'tool-calls', 'text']);
  } finally {
    await server.close();
    await rm(workspace, { recursive: true, force: true });
  }
});

it("the tool definitions type-check as the SDKs' own tool types", () => {
  const anthropicTools: Anthropic.Tool[] = agentToolDefinitions.map(toAnthropicTool);
  const openAITools: OpenAI.ChatCompletionTool[] = agentToolDefinitions.map(toOpenAITool);
  expect(anthropicTools.map((tool) => tool.name)).toEqual([
    'bash',
    'read_file',
    'write_file',
    'edit_file',
    'compact',
    'recall',
  ]);
  expect(openAITools).toHaveLength(6);
});
