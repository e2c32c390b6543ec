/**
 * How the scripted server writes answers and errors on each provider's wire: JSON bodies, the
 * server-sent event sequences, and the providers' error shapes.
 */
import type { ServerResponse } from 'node:http';
import type { ScriptedApi } from './script.js';

/** A content block of a scripted answer. */
export type AnswerBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** Why a scripted answer ended. */
export type AnswerStop = 'end_turn' | 'tool_use' | 'max_tokens';

/** A scripted answer, independent of the wire format. */
export interface Answer {
  id: string;
  model: string;
  blocks: AnswerBlock[];
  stop: AnswerStop;
  usage: {
    inputTokens: number;
    uncachedTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    outputTokens: number;
  };
  /** Whether the Anthropic answer reports the cache fields (only when the request used cache_control). */
  reportCacheFields: boolean;
  /** OpenAI: whether the stream ends with a usage chunk. */
  includeStreamUsage: boolean;
}

/** Splits text into the small pieces a model streams. */
function streamPieces(text: string): string[] {
  const pieces = text.match(/\S*\s*/g)?.filter((piece) => piece.length > 0) ?? [];
  return pieces.length > 0 ? pieces : [text];
}

function anthropicUsage(answer: Answer, outputTokens: number): Record<string, unknown> {
  const usage: Record<string, unknown> = { input_tokens: answer.usage.uncachedTokens };
  if (answer.reportCacheFields) {
    usage.cache_creation_input_tokens = answer.usage.cacheWriteTokens;
    usage.cache_read_input_tokens = answer.usage.cacheReadTokens;
  }
  usage.output_tokens = outputTokens;
  return usage;
}

/** The Anthropic `Message` object of an answer. */
export function anthropicMessage(answer: Answer): Record<string, unknown> {
  return {
    id: answer.id,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content: answer.blocks,
    stop_reason: answer.stop,
    stop_sequence: null,
    usage: anthropicUsage(answer, answer.usage.outputTokens),
  };
}

/** The Anthropic server-sent events of an answer, in the real order. */
export function anthropicEvents(answer: Answer): string[] {
  const events: string[] = [];
  const event = (data: Record<string, unknown>): void => {
    events.push(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  event({
    type: 'message_start',
    message: {
      ...anthropicMessage(answer),
      content: [],
      stop_reason: null,
      usage: anthropicUsage(answer, 1),
    },
  });
  event({ type: 'ping' });
  answer.blocks.forEach((block, index) => {
    switch (block.type) {
      case 'text':
        event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const text of streamPieces(block.text)) {
          event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
        }
        break;
      case 'tool_use': {
        event({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        const json = JSON.stringify(block.input);
        const middle = Math.ceil(json.length / 2);
        for (const partial of [json.slice(0, middle), json.slice(middle)]) {
          event({
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: partial },
          });
        }
        break;
      }
      default: {
        const unreachable: never = block;
        throw new Error(`unknown block ${JSON.stringify(unreachable)}`);
      }
    }
    event({ type: 'content_block_stop', index });
  });
  event({
    type: 'message_delta',
    delta: { stop_reason: answer.stop, stop_sequence: null },
    usage: { output_tokens: answer.usage.outputTokens },
  });
  event({ type: 'message_stop' });
  return events;
}

const openAIFinishReasons = { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length' } as const;

function openAIUsage(answer: Answer): Record<string, unknown> {
  return {
    prompt_tokens: answer.usage.inputTokens,
    completion_tokens: answer.usage.outputTokens,
    total_tokens: answer.usage.inputTokens + answer.usage.outputTokens,
    prompt_tokens_details: { cached_tokens: answer.usage.cacheReadTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
}

function openAIText(answer: Answer): string {
  return answer.blocks
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

function openAIToolCalls(answer: Answer): Record<string, unknown>[] {
  return answer.blocks.flatMap((block) =>
    block.type === 'tool_use'
      ? [
          {
            id: block.id,
            type: 'function',
            function: { name: block.name, arguments: JSON.stringify(block.input) },
          },
        ]
      : [],
  );
}

/** The OpenAI `ChatCompletion` object of an answer. */
export function openAICompletion(answer: Answer, created: number): Record<string, unknown> {
  const toolCalls = openAIToolCalls(answer);
  const text = openAIText(answer);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
    refusal: null,
    annotations: [],
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: answer.id,
    object: 'chat.completion',
    created,
    model: answer.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: openAIFinishReasons[answer.stop] }],
    usage: openAIUsage(answer),
    system_fingerprint: 'fp_scripted',
  };
}

/** The OpenAI streamed chunks of an answer, ending with `data: [DONE]`. */
export function openAIChunks(answer: Answer, created: number): string[] {
  const chunks: string[] = [];
  const chunk = (choices: unknown[], usage: unknown = null): void => {
    const data = { id: answer.id, object: 'chat.completion.chunk', created, model: answer.model, choices };
    chunks.push(`data: ${JSON.stringify(answer.includeStreamUsage ? { ...data, usage } : data)}\n\n`);
  };
  const delta = (value: Record<string, unknown>, finishReason: string | null = null): unknown[] => [
    { index: 0, delta: value, logprobs: null, finish_reason: finishReason },
  ];
  chunk(delta({ role: 'assistant', content: '', refusal: null }));
  const text = openAIText(answer);
  if (text !== '') for (const content of streamPieces(text)) chunk(delta({ content }));
  openAIToolCalls(answer).forEach((call, index) => {
    const { id, function: fn } = call as { id: string; function: { name: string; arguments: string } };
    chunk(
      delta({ tool_calls: [{ index, id, type: 'function', function: { name: fn.name, arguments: '' } }] }),
    );
    chunk(delta({ tool_calls: [{ index, function: { arguments: fn.arguments } }] }));
  });
  chunk(delta({}, openAIFinishReasons[answer.stop]));
  if (answer.includeStreamUsage) chunk([], openAIUsage(answer));
  chunks.push('data: [DONE]\n\n');
  return chunks;
}

/** The details of an error answer. */
export interface WireError {
  status: number;
  message: string;
  /** Anthropic `error.type`. */
  anthropicType:
    | 'invalid_request_error'
    | 'authentication_error'
    | 'not_found_error'
    | 'rate_limit_error'
    | 'api_error'
    | 'overloaded_error';
  /** OpenAI `error.type`. */
  openAIType: 'invalid_request_error' | 'requests' | 'server_error';
  /** OpenAI `error.param`. */
  param?: string | null;
  /** OpenAI `error.code`. */
  code?: string | null;
  headers?: Record<string, string>;
}

/** A 400 for a request the provider refuses, in the shape both providers share. */
export function invalidRequest(message: string, param: string | null, code: string | null = null): WireError {
  return {
    status: 400,
    message,
    anthropicType: 'invalid_request_error',
    openAIType: 'invalid_request_error',
    param,
    code,
  };
}

/** Writes an error in the provider's real JSON shape. */
export function writeError(response: ServerResponse, api: ScriptedApi, error: WireError): void {
  const body =
    api === 'anthropic'
      ? { type: 'error', error: { type: error.anthropicType, message: error.message } }
      : {
          error: {
            message: error.message,
            type: error.openAIType,
            param: error.param ?? null,
            code: error.code ?? null,
          },
        };
  response.writeHead(error.status, { 'content-type': 'application/json', ...error.headers });
  response.end(JSON.stringify(body));
}
