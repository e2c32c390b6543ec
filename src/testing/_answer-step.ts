/**
 * Answers one script step with a format's {@link AnswerWriter}: the answer's id, usage and blocks,
 * plain or streamed, or the step's error, hang or drop.
 */
import type { ServerResponse } from 'node:http';
import { countCacheControl } from './_cache-control.js';
import { type Answer, type AnswerBlock, type AnswerStop, type WireError, writeError } from './_wire.js';
import { estimateTokens, type InputUsage } from './prompt-usage.js';
import type { ScriptStepObject } from './script.js';
import type { AnswerWriter } from './wire/scripted-wire.js';

/** What answering one script step needs. */
interface StepAnswer {
  writer: AnswerWriter;
  stream: boolean;
  step: ScriptStepObject;
  makeAnswer: (blocks: AnswerBlock[], stop: AnswerStop) => Answer;
  maxTokens: number;
  /** The answer's number in this server, for ids. */
  answerNumber: number;
}

/** Writes what the script's step says: an answer, a provider error, a hang or a dropped connection. */
export function answerStep(
  response: ServerResponse,
  { writer, stream, step, makeAnswer, maxTokens, answerNumber }: StepAnswer,
): void {
  const fail = (error: WireError) => writeError(response, writer.errorBody, error);
  switch (step.type) {
    case 'text': {
      const limit = maxTokens * 4;
      const cut = step.text.length > limit;
      writeAnswer(
        response,
        writer,
        stream,
        makeAnswer(textBlocks(cut ? step.text.slice(0, limit) : step.text), cut ? 'max_tokens' : 'end_turn'),
      );
      return;
    }
    case 'tool-calls': {
      const blocks: AnswerBlock[] = textBlocks(step.text ?? '');
      step.calls.forEach((call, callIndex) => {
        const id = call.id ?? `${writer.toolCallPrefix}_scripted_${answerNumber}_${callIndex}`;
        blocks.push({ type: 'tool_use', id, name: call.name, input: call.input });
      });
      writeAnswer(response, writer, stream, makeAnswer(blocks, 'tool_use'));
      return;
    }
    case 'empty':
      writeAnswer(response, writer, stream, makeAnswer([], 'end_turn'));
      return;
    case 'oversize': {
      const tokens = step.tokens ?? maxTokens * 10;
      const sentence = 'This answer goes on far longer than it was asked to. ';
      const text = sentence.repeat(Math.ceil((tokens * 4) / sentence.length));
      writeAnswer(response, writer, stream, makeAnswer(textBlocks(text.slice(0, tokens * 4)), 'end_turn'));
      return;
    }
    case 'rate-limit':
    case 'server-error':
      fail(providerError(step));
      return;
    case 'hang':
      // Never answer: the socket stays open until the client gives up or close() drops it.
      return;
    case 'drop-connection':
      dropConnection(response, writer, stream, makeAnswer);
      return;
    case 'stream-error':
      if (stream) streamThenFail(response, writer, makeAnswer, providerError(step));
      else fail(providerError(step));
      return;
    default: {
      const unreachable: never = step;
      throw new Error(`unknown script step ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The provider error a rate-limit or server-error step answers with. */
function providerError(
  step: Extract<ScriptStepObject, { type: 'rate-limit' | 'server-error' | 'stream-error' }>,
): WireError {
  if (step.type === 'rate-limit') {
    return {
      status: 429,
      message: step.message ?? 'Number of request tokens has exceeded your per-minute rate limit.',
      anthropicType: 'rate_limit_error',
      openAIType: 'requests',
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': String(step.retryAfterSeconds ?? 1) },
    };
  }
  // An error reported mid-stream is most often an overload (Anthropic's `overloaded_error`).
  const status = step.status ?? (step.type === 'stream-error' ? 529 : 500);
  const overloaded = status === 529;
  return {
    status,
    message: step.message ?? (overloaded ? 'Overloaded' : 'Internal server error'),
    anthropicType: overloaded ? 'overloaded_error' : 'api_error',
    openAIType: 'server_error',
  };
}

/** Events of an answer sent before a drop or a streamed error: it has started, with some text. */
const STARTED_EVENTS = 3;

/** Starts an answer (the first stream events, or half the JSON) and drops the connection. */
function dropConnection(
  response: ServerResponse,
  writer: AnswerWriter,
  stream: boolean,
  makeAnswer: StepAnswer['makeAnswer'],
): void {
  const answer = makeAnswer(textBlocks('This answer is cut off when the connection drops.'), 'end_turn');
  if (stream) {
    response.writeHead(200, streamHeaders(writer));
    response.write(writer.streamParts(answer).slice(0, STARTED_EVENTS).join(''));
  } else {
    const json = JSON.stringify(writer.answerBody(answer));
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': String(json.length),
    });
    response.write(json.slice(0, Math.floor(json.length / 2)));
  }
  // Let the partial answer reach the client before the socket goes.
  setTimeout(() => response.socket?.destroy(), 10);
}

/** Starts a streamed answer (its first events), then reports `error` in the stream and ends it. */
function streamThenFail(
  response: ServerResponse,
  writer: AnswerWriter,
  makeAnswer: StepAnswer['makeAnswer'],
  error: WireError,
): void {
  const answer = makeAnswer(textBlocks('This answer fails before it ends.'), 'end_turn');
  const started = writer.streamParts(answer).slice(0, STARTED_EVENTS);
  response.writeHead(200, streamHeaders(writer));
  for (const part of started) response.write(part);
  response.end(writer.streamError(error, started.length));
}

/** Builds answers to one request: its id, model, usage (from the prompt cache) and API extras. */
export function answerMaker(
  writer: AnswerWriter,
  body: Record<string, unknown>,
  usage: InputUsage,
  answerNumber: number,
): (blocks: AnswerBlock[], stop: AnswerStop) => Answer {
  return (blocks, stop) => ({
    id: writer.answerId(answerNumber),
    model: typeof body.model === 'string' ? body.model : 'scripted',
    blocks,
    stop,
    usage: {
      inputTokens: usage.totalTokens,
      uncachedTokens: usage.uncachedTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      outputTokens: blocks.reduce((sum, block) => sum + outputTokensOf(block), 0),
    },
    reportCacheFields: usage.cacheReadTokens + usage.cacheWriteTokens > 0 || hasCacheControl(body),
    includeStreamUsage: isIncludeUsage(body),
    ...writer.answerExtras?.(body, answerNumber),
  });
}

function textBlocks(text: string): AnswerBlock[] {
  return text === '' ? [] : [{ type: 'text', text }];
}

function outputTokensOf(block: AnswerBlock): number {
  return block.type === 'text'
    ? Math.ceil(block.text.length / 4)
    : estimateTokens(block.input) + Math.ceil(block.name.length / 4);
}

function streamHeaders(writer: AnswerWriter): Record<string, string> {
  return {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    [writer.requestIdHeader]: `req_scripted_${Date.now()}`,
  };
}

function writeAnswer(response: ServerResponse, writer: AnswerWriter, stream: boolean, answer: Answer): void {
  if (stream) {
    response.writeHead(200, streamHeaders(writer));
    for (const part of writer.streamParts(answer)) response.write(part);
    response.end();
    return;
  }
  const body = writer.answerBody(answer);
  response.writeHead(200, {
    'content-type': 'application/json',
    [writer.requestIdHeader]: `req_scripted_${Date.now()}`,
  });
  response.end(JSON.stringify(body));
}

export function requestedMaxTokens(body: Record<string, unknown>): number {
  const value = body.max_tokens ?? body.max_completion_tokens ?? body.max_output_tokens;
  return typeof value === 'number' && value > 0 ? value : 4096;
}

function isIncludeUsage(body: Record<string, unknown>): boolean {
  const options = body.stream_options;
  return (
    typeof options === 'object' &&
    options !== null &&
    (options as { include_usage?: unknown }).include_usage === true
  );
}

function hasCacheControl(value: unknown): boolean {
  return countCacheControl(value) > 0;
}
