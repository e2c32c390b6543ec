/**
 * After the proxy answers a `recall` call, the client holds one turn joined from every round's
 * answer. The request after it goes upstream with the rounds as the model saw them, not the
 * joined turn: a model that binds its thinking to the history before it refuses a block written
 * after a round the history no longer holds, and the rounds' recalled text stays in view.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ScriptStep } from '../../testing/index.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

const script: ScriptStep[] = [
  { type: 'tool-calls', calls: [{ id: 'call_recall', name: 'recall', input: { id: 'r1' } }] },
  { type: 'tool-calls', calls: [{ id: 'call_read', name: 'read_file', input: { path: 'a.ts' } }] },
  'Done.',
];

/** A request to a model that binds its thinking, with a tool of the client's own. */
function thinkingRequest() {
  return {
    model: 'claude-opus-5-5',
    max_tokens: 100,
    thinking: { type: 'adaptive' as const },
    tools: [{ name: 'read_file', input_schema: { type: 'object' as const } }],
    messages: [{ role: 'user' as const, content: 'Read a.ts' }] as Anthropic.MessageParam[],
  };
}

describe('the request after recall rounds', () => {
  it.each([false, true])(
    'Anthropic, thinking bound to its history (stream %s): goes upstream valid, the rounds in place',
    async (stream) => {
      const { server, proxy } = await startProxyOver(script, { recall: true });
      const client = new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 });
      const request = thinkingRequest();
      const send = () =>
        stream ? client.messages.stream(request).finalMessage() : client.messages.create(request);
      const first = await send();
      // Streamed, one turn joined from both rounds (the recall round's thinking, then the answer's);
      // plain, the last answer: either way its thinking was written after the recall round.
      expect(first.content.map((block) => block.type)).toEqual([
        ...(stream ? ['thinking'] : []),
        'thinking',
        'tool_use',
      ]);
      request.messages.push(
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'call_read', content: 'const a = 1;' }],
        },
      );
      await send();
      expect(server.requests.map((request) => request.outcome)).toEqual(['tool-calls', 'tool-calls', 'text']);
      const roles = (server.requests[2]!.body.messages as { role: string; content: unknown }[]).map(
        (message) =>
          message.role === 'assistant'
            ? `assistant:${(message.content as { type: string; name?: string }[]).map((block) => block.name ?? block.type).join('+')}`
            : message.role,
      );
      expect(roles).toEqual([
        'user',
        'assistant:thinking+recall',
        'user',
        'assistant:thinking+read_file',
        'user',
      ]);
    },
  );

  it('a client that sends the request again without the answer gets the history without the rounds', async () => {
    const { server, proxy } = await startProxyOver(script, { recall: true });
    const client = new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 });
    const request = thinkingRequest();
    await client.messages.create(request);
    await client.messages.create(request);
    expect(server.requests[2]!.body.messages).toEqual(server.requests[0]!.body.messages);
  });

  it('OpenAI Responses with encrypted reasoning: each reasoning item stays before its own call', async () => {
    const { server, proxy } = await startProxyOver(script, { recall: true });
    const client = new OpenAI({ apiKey: 'k', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const request = {
      model: 'gpt-5',
      store: false,
      include: ['reasoning.encrypted_content' as const],
      reasoning: { effort: 'low' as const },
      tools: [
        { type: 'function' as const, name: 'read_file', strict: false, parameters: { type: 'object' } },
      ],
    };
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Read a.ts' }];
    const first = await client.responses.create({ ...request, input });
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), {
      type: 'function_call_output',
      call_id: 'call_read',
      output: 'const a = 1;',
    });
    const second = await client.responses.create({ ...request, input });
    expect(second.output_text).toBe('Done.');
    const types = (server.requests[2]!.body.input as { type?: string; name?: string }[]).map(
      (item) => item.name ?? item.type ?? 'message',
    );
    expect(types).toEqual([
      'message',
      'reasoning',
      'recall',
      'function_call_output',
      'reasoning',
      'read_file',
      'function_call_output',
    ]);
  });
});
