import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { codexLikeInput } from '../../../core/conversation/responses-input.test-utils.js';
import type { ResponsesInputItem } from '../../../core/conversation/responses-types.js';
import { fromResponsesInput, toResponsesInput } from '../../../core/wire/responses/responses-format.js';
import type { ScriptStep } from '../../script.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../scripted-model-server.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function client(script: ScriptStep[]) {
  server = await startScriptedModelServer({ script });
  return new OpenAI({ apiKey: 'test-key', baseURL: server.openaiBaseURL, maxRetries: 0, timeout: 5000 });
}

describe('scripted model server: POST /v1/responses', () => {
  it('answers client.responses.create with a Response the SDK reads', async () => {
    const openai = await client(['Hello from the script.']);
    const response = await openai.responses.create({
      model: 'gpt-5',
      instructions: 'Be brief.',
      input: 'Hi',
    });
    expect(response.output_text).toBe('Hello from the script.');
    expect(response.status).toBe('completed');
    expect(response.instructions).toBe('Be brief.');
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
    expect(response.usage?.total_tokens).toBe(
      (response.usage?.input_tokens ?? 0) + (response.usage?.output_tokens ?? 0),
    );
    expect(server!.requests[0]).toMatchObject({ api: 'responses', path: '/v1/responses', outcome: 'text' });
  });

  it('streams the API event sequence, ending with response.completed and usage', async () => {
    const openai = await client(['Streaming works fine.']);
    const stream = await openai.responses.create({ model: 'gpt-5', input: 'Hi', stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = [...new Set(events.map((event) => event.type))];
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const deltas = events.flatMap((event) =>
      event.type === 'response.output_text.delta' ? [event.delta] : [],
    );
    expect(deltas.join('')).toBe('Streaming works fine.');
    const completed = events.at(-1);
    expect(
      completed?.type === 'response.completed' && completed.response.usage?.output_tokens,
    ).toBeGreaterThan(0);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  });

  it('streams function calls that the SDK helper assembles (responses.stream)', async () => {
    const openai = await client([
      { type: 'tool-calls', calls: [{ id: 'call_1', name: 'shell', input: { command: 'ls' } }] },
    ]);
    const final = await openai.responses.stream({ model: 'gpt-5', input: 'List files' }).finalResponse();
    expect(final.output).toEqual([
      expect.objectContaining({
        type: 'function_call',
        call_id: 'call_1',
        name: 'shell',
        arguments: '{"command":"ls"}',
      }),
    ]);
  });

  it('returns reasoning with encrypted content; sent back unchanged it is accepted, altered it is not', async () => {
    const openai = await client([
      { type: 'tool-calls', calls: [{ id: 'call_1', name: 'shell', input: { command: 'ls' } }] },
      'Two files.',
    ]);
    const first = await openai.responses.create({
      model: 'gpt-5',
      input: 'List files',
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low' },
    });
    const [reasoning, call] = first.output;
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      encrypted_content: expect.stringMatching(/^enc_scripted_/),
    });
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_1' });
    const input = [
      { role: 'user', content: 'List files' },
      ...first.output,
      { type: 'function_call_output', call_id: 'call_1', output: 'a.ts\nb.ts' },
    ] as ResponseInputItem[];
    // Through the canonical model and back, as the compactor does: still accepted.
    const { messages } = fromResponsesInput(input as ResponsesInputItem[]);
    const second = await openai.responses.create({
      model: 'gpt-5',
      input: toResponsesInput(messages) as ResponseInputItem[],
      include: ['reasoning.encrypted_content'],
    });
    expect(second.output_text).toBe('Two files.');

    const altered = input.map((item) =>
      item.type === 'reasoning' ? { ...item, encrypted_content: `${item.encrypted_content}x` } : item,
    );
    await expect(openai.responses.create({ model: 'gpt-5', input: altered })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_encrypted_content',
    });
  });

  it('answers 404 to a reasoning item without encrypted content under store: false, as the API does', async () => {
    const openai = await client([
      { type: 'tool-calls', calls: [{ id: 'call_1', name: 'shell', input: { command: 'ls' } }] },
      'Two files.',
      'Two files.',
    ]);
    const first = await openai.responses.create({
      model: 'gpt-5',
      input: 'List files',
      store: false,
      reasoning: { effort: 'low' },
    });
    expect(first.output[0]).toMatchObject({ type: 'reasoning' });
    expect(first.output[0]).not.toHaveProperty('encrypted_content');
    const input = [
      { role: 'user', content: 'List files' },
      ...first.output,
      { type: 'function_call_output', call_id: 'call_1', output: 'a.ts' },
    ] as ResponseInputItem[];
    await expect(openai.responses.create({ model: 'gpt-5', input, store: false })).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('Items are not persisted when `store` is set to false'),
    });
    // Stored, the same reference is found.
    expect((await openai.responses.create({ model: 'gpt-5', input })).output_text).toBe('Two files.');
  });

  it.each([
    [
      'an output without its call',
      [
        { role: 'user', content: 'Hi' },
        { type: 'function_call_output', call_id: 'c9', output: 'x' },
      ],
      'No tool call found for function call output with call_id c9.',
      'input[1]',
    ],
    [
      'a call without its output',
      [
        { role: 'user', content: 'Hi' },
        { type: 'function_call', call_id: 'c1', name: 'ls', arguments: '{}' },
      ],
      'No tool output found for function call c1.',
      'input[1]',
    ],
    [
      'reasoning separated from its call',
      [
        { role: 'user', content: 'Hi' },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { role: 'user', content: 'again' },
      ],
      "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
      'input[1]',
    ],
  ])('rejects %s with the API 400 shape', async (_name, input, message, param) => {
    const openai = await client(['unused']);
    const error = await openai.responses
      .create({ model: 'gpt-5', input: input as ResponseInputItem[] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({
      status: 400,
      param,
      error: { message, type: 'invalid_request_error', param },
    });
    expect(server!.requests[0]?.outcome).toBe('invalid-request');
  });

  it('accepts a Codex-like input with foreign encrypted reasoning', async () => {
    const openai = await client(['ok']);
    const response = await openai.responses.create({ model: 'gpt-5', input: codexLikeInput() });
    expect(response.output_text).toBe('ok');
  });
});
