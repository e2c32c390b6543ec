/**
 * `--recall` on the Anthropic Messages API: `tool_use` blocks, `tool_result` follow-ups, and
 * streams of numbered content blocks (`content_block_start` / `_delta`).
 */
import { recallTool } from 'agent-compact/recall';
import { recallIndexes, renumbered, shiftedEvent } from '../../recall/held-events.js';
import { arrayOf, parseJson, streamedInBody } from '../../recall/recall-json.js';
import {
  type JsonRecord,
  RECALL_TOOL_NAME,
  type RecallWire,
  type StreamAssembler,
} from '../../recall/recall-wire.js';

const isRecallBlock = (block: JsonRecord) => block.type === 'tool_use' && block.name === RECALL_TOOL_NAME;

/** The blocks whose `input` streams as `input_json_delta`: the client's tools and the server's own. */
const streamsInput = (block: JsonRecord) =>
  block.type === 'tool_use' || block.type === 'server_tool_use' || block.type === 'mcp_tool_use';

export const anthropicRecall: RecallWire = {
  format: 'anthropic',
  isStreamed: streamedInBody,
  withRecallTool(tools) {
    const { name, description, inputSchema } = recallTool;
    return [...tools, { name, description, input_schema: inputSchema }];
  },
  declaredNames: (tool) => [(tool as { name?: unknown } | null)?.name],
  toolCalls: (answer) =>
    arrayOf(answer.content)
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({ id: String(block.id), name: block.name, input: block.input })),
  forbidToolCalls: (body) => ({ ...body, tool_choice: { type: 'none' } }),
  withoutRecallCalls: (answer) => ({
    ...answer,
    content: arrayOf(answer.content).filter((block) => !isRecallBlock(block)),
  }),
  followUp(conversation, answer, results) {
    // Only the recall calls are answered here, so only they stay in the assistant turn.
    const content = arrayOf(answer.content).filter(
      (block) => block.type !== 'tool_use' || block.name === RECALL_TOOL_NAME,
    );
    const toolResults = results.map((result) => ({
      type: 'tool_result',
      tool_use_id: result.id,
      content: result.output,
    }));
    return [...conversation, { role: 'assistant', content }, { role: 'user', content: toolResults }];
  },
  answerItems: (answer) => [{ role: 'assistant', content: arrayOf(answer.content) }],
  isAnswerItem: (item) => (item as JsonRecord | null)?.role === 'assistant',
  createAssembler: anthropicAssembler,
  withoutRecallEvents: (events) => renumbered(events, recallIndexes(events, recallBlockIndex), 'index'),
  opensIndex: (event) => event.data?.type === 'content_block_start',
  continuedEvent: (event, opened) =>
    event.data.type === 'message_start' ? undefined : shiftedEvent(event, 'index', opened),
};

function recallBlockIndex(data: JsonRecord): number | undefined {
  const block = data.content_block as JsonRecord | undefined;
  return data.type === 'content_block_start' &&
    block &&
    isRecallBlock(block) &&
    typeof data.index === 'number'
    ? data.index
    : undefined;
}

type Block = JsonRecord & { partialJson?: string };

function anthropicAssembler(): StreamAssembler {
  const blocks: Block[] = [];
  let recallStarted = false;
  return {
    add({ data }) {
      if (!data) return;
      const index = typeof data.index === 'number' ? data.index : -1;
      if (data.type === 'content_block_start') {
        const block = { ...(data.content_block as JsonRecord) };
        if (isRecallBlock(block)) recallStarted = true;
        blocks[index] = block;
      } else if (data.type === 'content_block_delta') {
        const block = blocks[index];
        const delta = data.delta as JsonRecord;
        if (block && delta) addDelta(block, delta);
      }
    },
    get recallStarted() {
      return recallStarted;
    },
    answer() {
      const content = blocks
        .filter(Boolean)
        .map(({ partialJson, ...block }) =>
          streamsInput(block) ? { ...block, input: parseJson(partialJson) ?? block.input ?? {} } : block,
        );
      return { role: 'assistant', content };
    },
  };
}

function addDelta(block: Block, delta: JsonRecord): void {
  if (delta.type === 'text_delta') block.text = `${block.text ?? ''}${delta.text}`;
  else if (delta.type === 'input_json_delta')
    block.partialJson = `${block.partialJson ?? ''}${delta.partial_json}`;
  else if (delta.type === 'thinking_delta') block.thinking = `${block.thinking ?? ''}${delta.thinking}`;
  else if (delta.type === 'signature_delta') block.signature = delta.signature;
  else if (delta.type === 'citations_delta')
    block.citations = [...((block.citations as unknown[] | undefined) ?? []), delta.citation];
  // A compaction block's one delta carries its final value, so it replaces rather than appends.
  else if (delta.type === 'compaction_delta') {
    const { type: _type, ...value } = delta;
    Object.assign(block, value);
  }
}
