/**
 * How the scripted server writes answers on the OpenAI Responses wire: the `Response` object and
 * its server-sent events (`response.created`, `response.output_item.added/done`,
 * `response.output_text.delta`, `response.completed`, …), in the order the API sends them.
 */
import type { Answer, WireError } from '../../_wire.js';

/** The reasoning item a Responses answer starts with, when the request asked for reasoning. */
export interface AnswerReasoning {
  id: string;
  summary: string;
  /** Present when the request included `reasoning.encrypted_content`. */
  encryptedContent?: string;
}

/** What a Responses answer adds to {@link Answer}. */
export interface ResponsesAnswer extends Answer {
  createdAt: number;
  reasoning?: AnswerReasoning;
  /** Request fields the `Response` object echoes (`instructions`, `store`, `metadata`, …). */
  echo: Record<string, unknown>;
  /**
   * Names of the request's `custom` (free-form) tools, in `tools` or an `additional_tools` input
   * item: a call of one is a `custom_tool_call` whose input is the scripted `input.input`.
   */
  customTools?: ReadonlySet<string>;
}

type JsonRecord = Record<string, unknown>;

/** The output items of an answer: reasoning, then the message, then function calls. */
function outputItems(answer: ResponsesAnswer): JsonRecord[] {
  const items: JsonRecord[] = [];
  if (answer.reasoning) {
    const { id, summary, encryptedContent } = answer.reasoning;
    const item: JsonRecord = { id, type: 'reasoning', summary: [{ type: 'summary_text', text: summary }] };
    if (encryptedContent !== undefined) item.encrypted_content = encryptedContent;
    items.push(item);
  }
  const text = answer.blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  if (text !== '') {
    items.push({
      id: `msg_${answer.id}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    });
  }
  answer.blocks.forEach((block, index) => {
    if (block.type !== 'tool_use') return;
    if (answer.customTools?.has(block.name)) {
      const { input } = block.input as { input?: unknown };
      items.push({
        id: `ctc_${answer.id}_${index}`,
        type: 'custom_tool_call',
        status: 'completed',
        call_id: block.id,
        name: block.name,
        input: typeof input === 'string' ? input : JSON.stringify(block.input),
      });
      return;
    }
    items.push({
      id: `fc_${answer.id}_${index}`,
      type: 'function_call',
      status: 'completed',
      arguments: JSON.stringify(block.input),
      call_id: block.id,
      name: block.name,
    });
  });
  return items;
}

function usageOf(answer: ResponsesAnswer): JsonRecord {
  const reasoningTokens = answer.reasoning ? Math.ceil(answer.reasoning.summary.length / 4) : 0;
  const outputTokens = answer.usage.outputTokens + reasoningTokens;
  return {
    input_tokens: answer.usage.inputTokens,
    input_tokens_details: { cached_tokens: answer.usage.cacheReadTokens },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: answer.usage.inputTokens + outputTokens,
  };
}

/** The `Response` object of an answer (`status` `completed`, or `incomplete` when cut at the limit). */
export function responsesObject(answer: ResponsesAnswer): JsonRecord {
  const cut = answer.stop === 'max_tokens';
  return {
    id: answer.id,
    object: 'response',
    created_at: answer.createdAt,
    status: cut ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: cut ? { reason: 'max_output_tokens' } : null,
    instructions: answer.echo.instructions ?? null,
    max_output_tokens: answer.echo.max_output_tokens ?? null,
    model: answer.model,
    output: outputItems(answer),
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null, ...(answer.echo.reasoning as JsonRecord | undefined) },
    store: answer.echo.store ?? true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: answer.echo.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: usageOf(answer),
    metadata: answer.echo.metadata ?? {},
  };
}

/** Splits text into the small pieces a model streams. */
function pieces(text: string): string[] {
  const found = text.match(/\S*\s*/g)?.filter((piece) => piece.length > 0) ?? [];
  return found.length > 0 ? found : [text];
}

/** The `error` event of a stream that failed after `eventsBefore` events, numbered after them. */
export function responsesStreamError(error: WireError, eventsBefore: number): string {
  const data = {
    type: 'error',
    code: error.code ?? error.openAIType,
    message: error.message,
    param: error.param ?? null,
    sequence_number: eventsBefore,
  };
  return `event: error\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The server-sent events of an answer, each `event: TYPE` + `data: JSON`, numbered in order. */
export function responsesEvents(answer: ResponsesAnswer): string[] {
  const events: string[] = [];
  const event = (data: JsonRecord): void => {
    const numbered = { ...data, sequence_number: events.length };
    events.push(`event: ${String(data.type)}\ndata: ${JSON.stringify(numbered)}\n\n`);
  };
  const final = responsesObject(answer);
  const pending = { ...final, status: 'in_progress', output: [], usage: null, incomplete_details: null };
  event({ type: 'response.created', response: pending });
  event({ type: 'response.in_progress', response: pending });
  (final.output as JsonRecord[]).forEach((item, outputIndex) => {
    itemEvents(item, outputIndex, event);
  });
  event({
    type: final.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
    response: final,
  });
  return events;
}

function itemEvents(item: JsonRecord, outputIndex: number, event: (data: JsonRecord) => void): void {
  const itemId = item.id;
  switch (item.type) {
    case 'message': {
      event({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', content: [] },
      });
      const part = (item.content as JsonRecord[])[0]!;
      const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
      event({ type: 'response.content_part.added', ...at, part: { ...part, text: '' } });
      for (const delta of pieces(String(part.text))) {
        event({ type: 'response.output_text.delta', ...at, delta, logprobs: [] });
      }
      event({ type: 'response.output_text.done', ...at, text: part.text, logprobs: [] });
      event({ type: 'response.content_part.done', ...at, part });
      break;
    }
    case 'function_call': {
      event({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      const at = { item_id: itemId, output_index: outputIndex };
      event({ type: 'response.function_call_arguments.delta', ...at, delta: item.arguments });
      event({ type: 'response.function_call_arguments.done', ...at, arguments: item.arguments });
      break;
    }
    case 'custom_tool_call': {
      event({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', input: '' },
      });
      const at = { item_id: itemId, output_index: outputIndex };
      event({ type: 'response.custom_tool_call_input.delta', ...at, delta: item.input });
      event({ type: 'response.custom_tool_call_input.done', ...at, input: item.input });
      break;
    }
    default:
      event({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, summary: [] },
      });
  }
  event({ type: 'response.output_item.done', output_index: outputIndex, item });
}
