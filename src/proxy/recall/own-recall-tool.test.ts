/**
 * `--recall` answers only the tool the proxy declared: a client's own tool named `recall` (a memory
 * server's, say) keeps its calls, in every API and streamed or not.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ScriptStep } from '../../testing/index.js';
import { toolCallingScript, toolOutput } from '../agent-loops.test-utils.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

/** The model calls the client's memory tool. */
const callsMemory: ScriptStep = {
  type: 'tool-calls',
  calls: [{ id: 'call_memory_1', name: 'recall', input: { query: 'what did we decide about caching?' } }],
};
const memoryTool = {
  name: 'recall',
  description: 'Search the memory server',
  schema: { type: 'object' as const, properties: { query: { type: 'string' } } },
};

describe("--recall and a client's own `recall` tool", () => {
  it.each([false, true])('Anthropic (stream %s): the client gets its call', async (stream) => {
    const { server, proxy } = await startProxyOver([callsMemory], { recall: true });
    const client = new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 });
    const request = {
      model: 'm',
      max_tokens: 100,
      tools: [
        { name: memoryTool.name, description: memoryTool.description, input_schema: memoryTool.schema },
      ],
      messages: [{ role: 'user' as const, content: 'What did we decide?' }],
    };
    const message = stream
      ? await client.messages.stream(request).finalMessage()
      : await client.messages.create(request);
    expect(message.content).toMatchObject([
      {
        type: 'tool_use',
        id: 'call_memory_1',
        name: 'recall',
        input: { query: 'what did we decide about caching?' },
      },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    // Nothing answered the call behind the client's back.
    expect(server.requests).toHaveLength(1);
    expect((server.requests[0]!.body.tools as unknown[]).length).toBe(1);
  });

  it.each([false, true])('OpenAI chat (stream %s): the client gets its call', async (stream) => {
    const { server, proxy } = await startProxyOver([callsMemory], { recall: true });
    const client = new OpenAI({ apiKey: 'k', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const request = {
      model: 'gpt-test',
      tools: [
        {
          type: 'function' as const,
          function: {
            name: memoryTool.name,
            description: memoryTool.description,
            parameters: memoryTool.schema,
          },
        },
      ],
      messages: [{ role: 'user' as const, content: 'What did we decide?' }],
    };
    let calls: { id?: string; function?: { name?: string } }[] = [];
    if (stream) {
      const runner = client.chat.completions.stream(request);
      calls = (await runner.finalChatCompletion()).choices[0]?.message.tool_calls ?? [];
    } else {
      calls = (await client.chat.completions.create(request)).choices[0]?.message.tool_calls ?? [];
    }
    expect(calls.map((call) => [call.id, call.function?.name])).toEqual([['call_memory_1', 'recall']]);
    expect(server.requests).toHaveLength(1);
  });

  it('OpenAI chat, a custom tool named recall: no second recall is declared', async () => {
    const { server, proxy } = await startProxyOver(['Nothing to recall.'], { recall: true });
    const client = new OpenAI({ apiKey: 'k', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({
      model: 'gpt-test',
      tools: [{ type: 'custom', custom: { name: memoryTool.name, description: memoryTool.description } }],
      messages: [{ role: 'user', content: 'What did we decide?' }],
    });
    expect(server.requests[0]!.body.tools).toEqual([
      { type: 'custom', custom: { name: 'recall', description: memoryTool.description } },
    ]);
  });

  it.each([
    ['functionDeclarations', 'functionDeclarations'],
    // The REST API takes the proto's own field names too, as Google's curl examples and Pipecat write them.
    ['function_declarations', 'function_declarations'],
  ])('Gemini, declared as %s: the client gets its call', async (_name, field) => {
    const { server, proxy } = await startProxyOver([callsMemory], { recall: true });
    const answer = await fetch(`${proxy.url}/v1beta/models/gemini-test:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'What did we decide?' }] }],
        tools: [
          {
            [field]: [
              { name: memoryTool.name, description: memoryTool.description, parameters: memoryTool.schema },
            ],
          },
        ],
      }),
    });
    const parts = ((await answer.json()) as { candidates: { content: { parts: unknown[] } }[] }).candidates[0]
      ?.content.parts;
    expect(parts).toMatchObject([
      { functionCall: { name: 'recall', args: { query: 'what did we decide about caching?' } } },
    ]);
    // Nothing answered the call behind the client's back, and no second `recall` was declared.
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]!.body.tools).match(/"name":"recall"/g)).toHaveLength(1);
  });

  it.each([
    ['with', true],
    ['without', false],
  ])(
    'placeholders name archive ids only for the proxy’s own tool (a client %s its own recall)',
    async (_name, own) => {
      const { server, proxy, records } = await startProxyOver(toolCallingScript, {
        thresholds: { mid: 3000, hard: 6000 },
        summarizer: 'extractive',
        recall: true,
      });
      const client = new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 });
      const tools = [
        { name: 'read_file', input_schema: { type: 'object' as const } },
        ...(own ? [{ name: memoryTool.name, input_schema: memoryTool.schema }] : []),
      ];
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Read every file.' }];
      for (let turn = 0; turn < 10; turn += 1) {
        const message = await client.messages.create({ model: 'm', max_tokens: 100, tools, messages });
        messages.push({ role: 'assistant', content: message.content });
        const calls = message.content.filter((block) => block.type === 'tool_use');
        messages.push({
          role: 'user',
          content: calls.map((call) => ({
            type: 'tool_result',
            tool_use_id: call.id,
            content: toolOutput(turn),
          })),
        });
      }
      expect(records.some((record) => record.layer !== 'none')).toBe(true);
      const sent = JSON.stringify(server.requests.map((request) => request.body.messages));
      expect(/recall r\d+/.test(sent)).toBe(!own);
    },
  );
});
