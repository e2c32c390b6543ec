/**
 * The Gemini API side of the scripted model server: `POST /v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent?alt=sse` and `:countTokens`, the API's error shape
 * (`{ error: { code, message, status } }`), and its request rules — including the 400 for a
 * current-turn function call whose `thoughtSignature` was stripped.
 */
import type { ServerResponse } from 'node:http';
import { validateMessages } from 'agent-compact';
import { geminiStatusName } from 'agent-compact/wire';
import type { WireError } from '../../_wire.js';
import { estimateRequestTokens, estimateTokens } from '../../prompt-usage.js';
import type { ResponseOutcome, ScriptStepObject } from '../../script.js';
import type { ScriptedExchange } from '../scripted-wire.js';

/** The path prefix of every Gemini route. */
export const GEMINI_PATH_PREFIX = '/v1beta/models/';

/** What the Gemini handler needs from the server (the prompt cache it does not use). */
export type GeminiExchange = Omit<ScriptedExchange, 'cache'>;

type Json = Record<string, unknown>;

/** Answers one request to a Gemini route. */
export async function handleGemini(exchange: GeminiExchange): Promise<void> {
  const { incoming, response, seen } = exchange;
  const url = new URL(incoming.url ?? '/', 'http://127.0.0.1');
  const [model, method] = decodeURIComponent(url.pathname.slice(GEMINI_PATH_PREFIX.length)).split(':');
  const stream = method === 'streamGenerateContent';
  const reject = (body: Json, outcome: ResponseOutcome, code: number, message: string) => {
    exchange.record({ ...seen, body, stream, inputTokens: 0, outcome });
    writeGeminiError(response, code, message);
  };
  const known = ['generateContent', 'streamGenerateContent', 'countTokens'];
  if (incoming.method !== 'POST' || !model || !method || !known.includes(method)) {
    return reject(
      {},
      'not-found',
      404,
      `scripted model server: no route for ${incoming.method} ${url.pathname}`,
    );
  }
  const body = parseObject(exchange.rawBody);
  if (!body) return reject({}, 'invalid-request', 400, 'Invalid JSON payload received.');
  const key = incoming.headers['x-goog-api-key'] ?? url.searchParams.get('key');
  if (typeof key !== 'string' || key.trim() === '') {
    return reject(
      body,
      'unauthorized',
      403,
      "Method doesn't allow unregistered callers. Please use an API key.",
    );
  }
  // The API takes the wrapped request under its JSON name or the proto's.
  const wrapped = body.generateContentRequest ?? body.generate_content_request;
  const request = method === 'countTokens' && isRecord(wrapped) ? wrapped : body;
  const problem = requestProblem(request, exchange.validation);
  if (problem) return reject(body, 'invalid-request', 400, problem);
  const inputTokens = geminiPromptTokens(request);
  if (method === 'countTokens') {
    exchange.record({ ...seen, body, stream: false, inputTokens, outcome: 'count-tokens' });
    return writeJson(response, { totalTokens: inputTokens });
  }
  const { contextWindow } = exchange;
  if (contextWindow !== undefined && inputTokens > contextWindow) {
    const message = `The input token count (${inputTokens}) exceeds the maximum number of tokens allowed (${contextWindow}).`;
    exchange.record({ ...seen, body, stream, inputTokens, outcome: 'prompt-too-long' });
    return writeGeminiError(response, 400, message);
  }
  const pending = { ...seen, body, stream, inputTokens };
  const step = await exchange.chooseStep(pending);
  exchange.record({ ...pending, outcome: step?.type ?? 'script-exhausted' });
  if (!step)
    return writeGeminiError(
      response,
      500,
      `scripted model server: the script has no step for request #${seen.index}`,
    );
  answerGemini(response, { step, stream, model, inputTokens, answerNumber: exchange.answerNumber() });
}

/** The first rule a request breaks, as the API's message, or undefined. */
function requestProblem(body: Json, validation: 'provider-rules' | 'off'): string | undefined {
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    return '* GenerateContentRequest.contents: contents is not specified';
  }
  if (validation === 'off') return undefined;
  const [first] = validateMessages(body.contents, { format: 'gemini' });
  if (!first) return undefined;
  if (first.rule === 'missing-thought-signature') {
    return `Function call is missing a thought_signature in functionCall parts (${first.path}). This is required for tools to work correctly.`;
  }
  return `Invalid argument: ${first.path}: ${first.message}`;
}

/** The server's estimate of a request's prompt: its contents, system instruction and tools. */
export function geminiPromptTokens(body: Json): number {
  return estimateRequestTokens('gemini', body);
}

interface GeminiAnswer {
  step: ScriptStepObject;
  stream: boolean;
  model: string;
  inputTokens: number;
  answerNumber: number;
}

function answerGemini(response: ServerResponse, answer: GeminiAnswer) {
  const { step } = answer;
  switch (step.type) {
    case 'text':
    case 'oversize':
    case 'empty': {
      const text =
        step.type === 'text'
          ? step.text
          : step.type === 'empty'
            ? ''
            : 'Far too long. '.repeat(step.tokens ?? 2000);
      return writeCandidate(response, answer, text === '' ? [] : [{ text }]);
    }
    case 'tool-calls': {
      const parts: Json[] = step.text ? [{ text: step.text }] : [];
      step.calls.forEach((call, index) => {
        const functionCall = { ...(call.id ? { id: call.id } : {}), name: call.name, args: call.input };
        // Gemini 3 signs the first call of each step; the client must send it back.
        parts.push(
          index === 0
            ? { functionCall, thoughtSignature: signatureOf(answer.answerNumber) }
            : { functionCall },
        );
      });
      return writeCandidate(response, answer, parts);
    }
    case 'rate-limit':
      return writeGeminiError(
        response,
        429,
        step.message ?? 'Resource has been exhausted (e.g. check quota).',
        {
          'retry-after': String(step.retryAfterSeconds ?? 1),
        },
      );
    case 'server-error':
      return writeGeminiError(
        response,
        step.status ?? 500,
        step.message ?? 'An internal error has occurred.',
      );
    case 'stream-error':
      return streamThenFail(response, answer, step.status ?? 503, step.message ?? 'The model is overloaded.');
    case 'hang':
      return;
    case 'drop-connection':
      response.writeHead(200, { 'content-type': answer.stream ? 'text/event-stream' : 'application/json' });
      response.write(answer.stream ? 'data: {"candidates": [' : '{"candidates": [');
      setTimeout(() => response.socket?.destroy(), 10);
      return;
    default: {
      const unreachable: never = step;
      throw new Error(`unknown script step ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The signature the server hands out with the calls of answer `answerNumber`. */
export function signatureOf(answerNumber: number): string {
  return Buffer.from(`scripted-signature-${answerNumber}`).toString('base64');
}

function writeCandidate(response: ServerResponse, answer: GeminiAnswer, parts: Json[]) {
  const outputTokens = parts.reduce((sum: number, part) => sum + estimateTokens(part), 0);
  const usageMetadata = {
    promptTokenCount: answer.inputTokens,
    candidatesTokenCount: outputTokens,
    totalTokenCount: answer.inputTokens + outputTokens,
  };
  const base = { modelVersion: answer.model, responseId: `scripted-${answer.answerNumber}` };
  const candidate = (chunkParts: Json[], last: boolean) => ({
    content: { role: 'model', parts: chunkParts },
    ...(last ? { finishReason: 'STOP' } : {}),
    index: 0,
  });
  if (!answer.stream) {
    return writeJson(response, { candidates: [candidate(parts, true)], usageMetadata, ...base });
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  // One chunk per part, as the API streams; usage on every chunk, the finish reason on the last.
  const chunks = parts.length === 0 ? [[]] : parts.map((part) => [part]);
  chunks.forEach((chunk, index) => {
    const data = { candidates: [candidate(chunk, index === chunks.length - 1)], usageMetadata, ...base };
    response.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
  });
  response.end();
}

/**
 * A streamed answer's first chunk, then a chunk that holds only the error, as the API reports an
 * overload mid-answer; a plain answer gets the error as its status.
 */
function streamThenFail(response: ServerResponse, answer: GeminiAnswer, code: number, message: string) {
  if (!answer.stream) return writeGeminiError(response, code, message);
  const started = {
    candidates: [{ content: { role: 'model', parts: [{ text: 'This answer ' }] }, index: 0 }],
  };
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.write(`data: ${JSON.stringify(started)}\r\n\r\n`);
  response.end(`data: ${JSON.stringify(geminiErrorBody({ status: code, message }))}\r\n\r\n`);
}

/** An error answer's body in the Gemini API's shape. */
export function geminiErrorBody({ status, message }: Pick<WireError, 'status' | 'message'>): Json {
  return { error: { code: status, message, status: geminiStatusName(status) } };
}

/** Writes an error in the Gemini API's shape. */
export function writeGeminiError(
  response: ServerResponse,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(code, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  response.end(JSON.stringify(geminiErrorBody({ status: code, message })));
}

function writeJson(response: ServerResponse, value: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify(value));
}

function parseObject(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
