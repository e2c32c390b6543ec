/**
 * `--recall` on OpenAI Responses: `function_call` output items, `function_call_output` follow-ups,
 * and streams of numbered output items closed by `response.completed` with the whole output.
 */
import { recallTool } from 'agent-compact/recall';
import { recallIndexes, renumbered, shiftedEvent, withData } from '../../recall/held-events.js';
import { arrayOf, parseArguments, streamedInBody } from '../../recall/recall-json.js';
import {
  type JsonRecord,
  RECALL_TOOL_NAME,
  type RecallWire,
  type StreamAssembler,
} from '../../recall/recall-wire.js';
import type { SseEvent } from '../../recall/sse-events.js';

const isRecallItem = (item: { type?: unknown; name?: unknown } | undefined) =>
  item?.type === 'function_call' && item.name === RECALL_TOOL_NAME;

export const responsesRecall: RecallWire = {
  format: 'responses',
  toolsElsewhere: additionalTools,
  isStreamed: streamedInBody,
  withRecallTool(tools) {
    const { name, description, inputSchema: parameters } = recallTool;
    return [...tools, { type: 'function', name, description, parameters }];
  },
  declaredNames: (tool) => [(tool as { name?: unknown } | null)?.name],
  toolCalls: (answer) =>
    arrayOf(answer.output)
      .filter((item) => item.type === 'function_call')
      .map((item) => ({ id: String(item.call_id), name: item.name, input: parseArguments(item.arguments) })),
  forbidToolCalls: (body) => ({ ...body, tool_choice: 'none' }),
  withoutRecallCalls: (answer) => ({
    ...answer,
    output: arrayOf(answer.output).filter((item) => !isRecallItem(item)),
  }),
  followUp(conversation, answer, results, request) {
    // Output items are valid input items; client calls are left out as they get no output here.
    const output = replayable(answer, request).filter(
      (item) => item.type !== 'function_call' || item.name === RECALL_TOOL_NAME,
    );
    const outputs = results.map((result) => ({
      type: 'function_call_output',
      call_id: result.id,
      output: result.output,
    }));
    return [...conversation, ...output, ...outputs];
  },
  answerItems: replayable,
  isAnswerItem: (item) => {
    const { type, role } = (item ?? {}) as JsonRecord;
    if (type === 'message') return role === 'assistant';
    // What the client sends back of its own: its calls' outputs and its extra tools.
    return typeof type === 'string' && !type.endsWith('_output') && type !== 'additional_tools';
  },
  createAssembler: responsesAssembler,
  withoutRecallEvents: (events) =>
    renumbered(events, recallIndexes(events, recallItemIndex), 'output_index').map(withoutRecallOutput),
  opensIndex: (event) => event.data?.type === 'response.output_item.added',
  continuedEvent: (event, opened) =>
    event.data.type === 'response.created' || event.data.type === 'response.in_progress'
      ? undefined
      : shiftedEvent(event, 'output_index', opened),
};

/** The tools of `additional_tools` input items, namespaces opened (their nested tools count). */
function additionalTools(body: JsonRecord): unknown[] {
  const items = arrayOf(body.input).filter((item) => item.type === 'additional_tools');
  const open = (tool: JsonRecord): JsonRecord[] =>
    tool.type === 'namespace' ? [tool, ...arrayOf(tool.tools).flatMap(open)] : [tool];
  return items.flatMap((item) => arrayOf(item.tools).flatMap(open));
}

/**
 * The answer's output items that can go back as input. Under `store: false` a reasoning item
 * without its encrypted content refers to nothing the API kept (404 "Items are not persisted"),
 * so it stays out.
 */
function replayable(answer: JsonRecord, request: JsonRecord): JsonRecord[] {
  return arrayOf(answer.output).filter(
    (item) =>
      !(request.store === false && item.type === 'reasoning' && typeof item.encrypted_content !== 'string'),
  );
}

function recallItemIndex(data: JsonRecord): number | undefined {
  return data.type === 'response.output_item.added' &&
    isRecallItem(data.item as JsonRecord | undefined) &&
    typeof data.output_index === 'number'
    ? data.output_index
    : undefined;
}

/** The closing `response.completed` (or `.incomplete`) carries the whole output: recall items leave it. */
function withoutRecallOutput(event: SseEvent): SseEvent {
  const response = event.data?.response as { output?: unknown } | undefined;
  if (!response || !Array.isArray(response.output)) return event;
  const output = response.output.filter((item: { type?: unknown; name?: unknown }) => !isRecallItem(item));
  return withData(event, { ...event.data, response: { ...response, output } });
}

function responsesAssembler(): StreamAssembler {
  let completed: JsonRecord | undefined;
  let recallStarted = false;
  return {
    add({ data }) {
      if (!data) return;
      if (data.type === 'response.output_item.added' && isRecallItem(data.item as JsonRecord | undefined)) {
        recallStarted = true;
      }
      if (data.type === 'response.completed') completed = data.response as JsonRecord;
    },
    get recallStarted() {
      return recallStarted;
    },
    answer() {
      return completed ?? { output: [] };
    },
  };
}
