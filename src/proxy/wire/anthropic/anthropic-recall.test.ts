import { BetaMessageStream } from '@anthropic-ai/sdk/lib/BetaMessageStream';
import { describe, expect, it } from 'vitest';
import { anthropicRecall } from './anthropic-recall.js';

/**
 * A streamed answer that used the server's own tools before calling recall: a web search whose query
 * streams as `input_json_delta`, text with a citation, an MCP call, and a compaction block.
 */
const events: Record<string, unknown>[] = [
  {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 0 },
    },
  },
  {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'compaction', content: null, encrypted_content: null },
  },
  {
    type: 'content_block_delta',
    index: 0,
    delta: {
      type: 'compaction_delta',
      content: 'Earlier: the agent fixed the parser.',
      encrypted_content: 'e1',
    },
  },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"query":' } },
  {
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json: '"tree-sitter"}' },
  },
  { type: 'content_block_stop', index: 1 },
  {
    type: 'content_block_start',
    index: 2,
    content_block: {
      type: 'mcp_tool_use',
      id: 'mcptoolu_1',
      name: 'lookup',
      server_name: 'docs',
      input: {},
    },
  },
  {
    type: 'content_block_delta',
    index: 2,
    delta: { type: 'input_json_delta', partial_json: '{"topic":"wasm"}' },
  },
  { type: 'content_block_stop', index: 2 },
  { type: 'content_block_start', index: 3, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'Grammars load from WASM.' } },
  {
    type: 'content_block_delta',
    index: 3,
    delta: {
      type: 'citations_delta',
      citation: {
        type: 'web_search_result_location',
        url: 'https://example.com/wasm',
        title: 'WASM',
        cited_text: 'Grammars load from WASM.',
        encrypted_index: 'x',
      },
    },
  },
  { type: 'content_block_stop', index: 3 },
  {
    type: 'content_block_start',
    index: 4,
    content_block: { type: 'tool_use', id: 'call_recall', name: 'recall', input: {} },
  },
  { type: 'content_block_delta', index: 4, delta: { type: 'input_json_delta', partial_json: '{"id":"r1"}' } },
  { type: 'content_block_stop', index: 4 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 20 },
  },
  { type: 'message_stop' },
];

/** The answer the official SDK assembles from the same events. */
async function sdkAnswer(): Promise<unknown[]> {
  const lines = events.map((event) => `${JSON.stringify(event)}\n`).join('');
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(lines));
      controller.close();
    },
  });
  return (await BetaMessageStream.fromReadableStream(body).finalMessage()).content;
}

describe('anthropicRecall: a held-back stream assembled for the follow-up request', () => {
  it('keeps what the server streamed into each block, as the SDK assembles it', async () => {
    const assembler = anthropicRecall.createAssembler();
    for (const data of events) assembler.add({ raw: '', name: String(data.type), data });
    const answer = assembler.answer() as { content: unknown[] };
    expect(answer.content).toEqual(JSON.parse(JSON.stringify(await sdkAnswer())));
    expect(answer.content[1]).toMatchObject({ input: { query: 'tree-sitter' } });
  });
});
