import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowsSystemMessages, validateMessages } from '../core/conversation/validate.js';
import { unknownContentType } from './_content-types.js';
import { checkResponsesRequest, responsesExtras } from './_responses-request.js';
import { type ResponsesAnswer, responsesEvents, responsesObject } from './_responses-wire.js';
import {
  type Answer,
  type AnswerBlock,
  type AnswerStop,
  anthropicEvents,
  anthropicMessage,
  openAIChunks,
  openAICompletion,
  type WireError,
  writeError,
} from './_wire.js';
import { GEMINI_PATH_PREFIX, handleGemini } from './gemini/gemini-server.js';
import { estimateRequestTokens, estimateTokens, type InputUsage, PromptCache } from './prompt-usage.js';
import {
  normalizeStep,
  type RecordedRequest,
  type ResponseOutcome,
  type Script,
  type ScriptedApi,
  type ScriptStepObject,
} from './script.js';

/** Options of {@link startScriptedModelServer}. */
export interface ScriptedModelServerOptions {
  /** The answers: steps in order, or a function that picks the step for each request. */
  script: Script;
  /**
   * The model's context window in input tokens; a longer prompt gets the provider's "prompt is too
   * long" 400. Unlimited when absent.
   */
  contextWindow?: number;
  /**
   * `'provider-rules'` rejects conversations the provider would reject (orphan tool results, a
   * first assistant message, empty text…) with its real 400 error shape; `'off'` accepts anything.
   * @default 'provider-rules'
   */
  validation?: 'provider-rules' | 'off';
}

/** A running scripted model server. */
export interface ScriptedModelServer {
  /** The server's origin, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The `baseURL` for `@anthropic-ai/sdk` (the origin; the SDK adds `/v1/messages`). */
  readonly anthropicBaseURL: string;
  /** The `baseURL` for `openai` and OpenAI-compatible clients (the origin plus `/v1`). */
  readonly openaiBaseURL: string;
  /** The base URL for `@google/genai` (`httpOptions.baseUrl`) and Gemini CLI (`GOOGLE_GEMINI_BASE_URL`). */
  readonly geminiBaseURL: string;
  /** Every request received so far, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Stops the server and drops every open connection, hanging ones included. */
  close(): Promise<void>;
}

const hiddenHeaders = new Set(['authorization', 'x-api-key', 'api-key', 'x-goog-api-key']);

/**
 * Starts a model server on 127.0.0.1 (a free port) that speaks the Anthropic Messages API
 * (`POST /v1/messages`), the OpenAI Chat Completions API (`POST /v1/chat/completions`) and the
 * OpenAI Responses API (`POST /v1/responses`) and the Gemini API
 * (`POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent`, `:countTokens`), plain and streamed, answering from a script.
 * Responses requests that ask for reasoning get a `reasoning` item (with `encrypted_content` when
 * `include` asks for it); encrypted content it handed out and gets back altered is a 400. Use it to drive the real SDKs in tests without a network.
 *
 * Input tokens are estimated deterministically (see {@link estimateRequestTokens}); Anthropic
 * requests with `cache_control` get `cache_creation_input_tokens` / `cache_read_input_tokens` from
 * an exact-prefix prompt cache, OpenAI requests get `prompt_tokens_details.cached_tokens`.
 *
 * @example
 * const server = await startScriptedModelServer({
 *   script: ['Hello!', { type: 'rate-limit', retryAfterSeconds: 1 }, 'Hello again.'],
 * });
 * const client = new Anthropic({ apiKey: 'test', baseURL: server.anthropicBaseURL });
 * const message = await client.messages.create({
 *   model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }],
 * });
 * await server.close();
 */
export async function startScriptedModelServer({
  script,
  contextWindow,
  validation = 'provider-rules',
}: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const requests: RecordedRequest[] = [];
  const cache = new PromptCache();
  let nextStep = 0;
  let idCounter = 0;
  let received = 0;

  const chooseStep = async (
    request: Omit<RecordedRequest, 'outcome'>,
  ): Promise<ScriptStepObject | undefined> => {
    if (typeof script === 'function') return normalizeStep(await script(request));
    const step = script[nextStep];
    if (step === undefined) return undefined;
    nextStep += 1;
    return normalizeStep(step);
  };

  const handle = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    // Numbered on arrival, so concurrent requests keep distinct, ordered indexes.
    const index = received;
    received += 1;
    const path = (incoming.url ?? '/').split('?')[0] ?? '/';
    const api = apiOfPath(path);
    const seen = { index, api, method: incoming.method ?? 'GET', path, headers: visibleHeaders(incoming) };
    const record = (
      body: Record<string, unknown>,
      stream: boolean,
      inputTokens: number,
      outcome: ResponseOutcome,
    ) => requests.push({ ...seen, body, stream, inputTokens, outcome });

    const rawBody = await readBody(incoming);
    if (api === 'gemini') {
      await handleGemini({
        incoming,
        response,
        rawBody,
        seen,
        validation,
        contextWindow,
        chooseStep,
        record: (request) => requests.push(request),
        answerNumber: () => {
          idCounter += 1;
          return idCounter;
        },
      });
      return;
    }
    await answerProviderRequest(incoming, response, rawBody, {
      seen,
      record,
      cache,
      contextWindow,
      validation,
      chooseStep,
      answerNumber: () => {
        idCounter += 1;
        return idCounter;
      },
    });
  };

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => answerCrash(response, error));
  });
  await listenOnLoopback(server);
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  let closed: Promise<void> | undefined;
  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    geminiBaseURL: url,
    requests,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}

/** What answering an Anthropic or OpenAI request needs from the server around it. */
interface ProviderRequestContext {
  seen: Omit<RecordedRequest, 'body' | 'stream' | 'inputTokens' | 'outcome'>;
  record: (
    body: Record<string, unknown>,
    stream: boolean,
    inputTokens: number,
    outcome: ResponseOutcome,
  ) => void;
  cache: PromptCache;
  contextWindow: number | undefined;
  validation: NonNullable<ScriptedModelServerOptions['validation']>;
  chooseStep: (request: Omit<RecordedRequest, 'outcome'>) => Promise<ScriptStepObject | undefined>;
  answerNumber: () => number;
}

/** Screens, counts, checks the window, then answers from the script (Anthropic and OpenAI APIs). */
async function answerProviderRequest(
  incoming: IncomingMessage,
  response: ServerResponse,
  rawBody: string,
  context: ProviderRequestContext,
): Promise<void> {
  const { seen, record, cache, contextWindow, validation, chooseStep } = context;
  const { path, api, index } = seen;
  const countOnly = path === '/v1/messages/count_tokens';
  const screened = screenRequest(incoming, { path, api, rawBody, validation, countOnly });
  if (screened.kind === 'reject') {
    record(screened.body, screened.stream, 0, screened.outcome);
    writeError(response, api, screened.error);
    return;
  }
  const { body, stream } = screened;
  if (countOnly) {
    // Counting neither answers from the script nor touches the prompt cache.
    const inputTokens = estimateRequestTokens('anthropic', body);
    record(body, false, inputTokens, 'count-tokens');
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ input_tokens: inputTokens }));
    return;
  }
  const usage = cache.measure(api, body);
  if (contextWindow !== undefined && usage.totalTokens > contextWindow) {
    record(body, stream, usage.totalTokens, 'prompt-too-long');
    writeError(response, api, promptTooLong(api, usage.totalTokens, contextWindow));
    return;
  }
  const pending: Omit<RecordedRequest, 'outcome'> = {
    ...seen,
    body,
    stream,
    inputTokens: usage.totalTokens,
  };
  const step = await chooseStep(pending);
  if (step === undefined) {
    record(body, stream, usage.totalTokens, 'script-exhausted');
    writeError(
      response,
      api,
      serverBug(`scripted model server: the script has no step for request #${index}`),
    );
    return;
  }
  record(body, stream, usage.totalTokens, step.type);

  const answerNumber = context.answerNumber();
  const makeAnswer = answerMaker(api, body, usage, answerNumber);
  answerStep(response, {
    api,
    stream,
    step,
    makeAnswer,
    maxTokens: requestedMaxTokens(body),
    answerNumber,
  });
}

/** What answering one script step needs. */
interface StepAnswer {
  api: ScriptedApi;
  stream: boolean;
  step: ScriptStepObject;
  makeAnswer: (blocks: AnswerBlock[], stop: AnswerStop) => Answer;
  maxTokens: number;
  /** The answer's number in this server, for ids. */
  answerNumber: number;
}

/** Writes what the script's step says: an answer, a provider error, a hang or a dropped connection. */
function answerStep(
  response: ServerResponse,
  { api, stream, step, makeAnswer, maxTokens, answerNumber }: StepAnswer,
): void {
  switch (step.type) {
    case 'text': {
      const limit = maxTokens * 4;
      const cut = step.text.length > limit;
      writeAnswer(
        response,
        api,
        stream,
        makeAnswer(textBlocks(cut ? step.text.slice(0, limit) : step.text), cut ? 'max_tokens' : 'end_turn'),
      );
      return;
    }
    case 'tool-calls': {
      const blocks: AnswerBlock[] = textBlocks(step.text ?? '');
      step.calls.forEach((call, callIndex) => {
        const id =
          call.id ?? `${api === 'anthropic' ? 'toolu' : 'call'}_scripted_${answerNumber}_${callIndex}`;

        blocks.push({ type: 'tool_use', id, name: call.name, input: call.input });
      });
      writeAnswer(response, api, stream, makeAnswer(blocks, 'tool_use'));
      return;
    }
    case 'empty':
      writeAnswer(response, api, stream, makeAnswer([], 'end_turn'));
      return;
    case 'oversize': {
      const tokens = step.tokens ?? maxTokens * 10;
      const sentence = 'This answer goes on far longer than it was asked to. ';
      const text = sentence.repeat(Math.ceil((tokens * 4) / sentence.length));
      writeAnswer(response, api, stream, makeAnswer(textBlocks(text.slice(0, tokens * 4)), 'end_turn'));
      return;
    }
    case 'rate-limit': {
      const seconds = step.retryAfterSeconds ?? 1;
      writeError(response, api, {
        status: 429,
        message: step.message ?? 'Number of request tokens has exceeded your per-minute rate limit.',
        anthropicType: 'rate_limit_error',
        openAIType: 'requests',
        code: 'rate_limit_exceeded',
        headers: { 'retry-after': String(seconds) },
      });
      return;
    }
    case 'server-error': {
      const status = step.status ?? 500;
      const overloaded = status === 529;
      writeError(response, api, {
        status,
        message: step.message ?? (overloaded ? 'Overloaded' : 'Internal server error'),
        anthropicType: overloaded ? 'overloaded_error' : 'api_error',
        openAIType: 'server_error',
      });
      return;
    }
    case 'hang':
      // Never answer: the socket stays open until the client gives up or close() drops it.
      return;
    case 'drop-connection': {
      const answer = makeAnswer(textBlocks('This answer is cut off when the connection drops.'), 'end_turn');
      if (stream) {
        response.writeHead(200, streamHeaders(api));
        response.write(streamParts(api, answer).slice(0, 3).join(''));
      } else {
        const json = JSON.stringify(answerBody(api, answer));
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(json.length),
        });
        response.write(json.slice(0, Math.floor(json.length / 2)));
      }
      // Let the partial answer reach the client before the socket goes.
      setTimeout(() => response.socket?.destroy(), 10);
      return;
    }
    default: {
      const unreachable: never = step;
      throw new Error(`unknown script step ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Builds answers to one request: its id, model, usage (from the prompt cache) and API extras. */
function answerMaker(
  api: ScriptedApi,
  body: Record<string, unknown>,
  usage: InputUsage,
  answerNumber: number,
): (blocks: AnswerBlock[], stop: AnswerStop) => Answer {
  return (blocks, stop) => ({
    id: answerId(api, answerNumber),
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
    ...(api === 'responses' ? responsesExtras(body, answerNumber) : {}),
  });
}

function listenOnLoopback(server: Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}

/** A bug in a script or in the server: a 500 the SDKs do not retry, or a cut connection mid-answer. */
function answerCrash(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.socket?.destroy();
    return;
  }
  writeError(
    response,
    'anthropic',
    serverBug(`scripted model server failed: ${error instanceof Error ? error.message : String(error)}`),
  );
}

function apiOfPath(path: string): ScriptedApi {
  if (path.startsWith(GEMINI_PATH_PREFIX)) return 'gemini';
  if (path.endsWith('/chat/completions')) return 'openai';
  return path.endsWith('/responses') ? 'responses' : 'anthropic';
}

/** A request that cannot get a scripted answer, or its parsed body. */
type ScreenedRequest =
  | {
      kind: 'reject';
      body: Record<string, unknown>;
      stream: boolean;
      outcome: ResponseOutcome;
      error: WireError;
    }
  | { kind: 'accept'; body: Record<string, unknown>; stream: boolean };

/** The provider's checks before an answer, in its order: route, JSON, key, request rules. */
function screenRequest(
  incoming: IncomingMessage,
  {
    path,
    api,
    rawBody,
    validation,
    countOnly,
  }: {
    path: string;
    api: ScriptedApi;
    rawBody: string;
    validation: NonNullable<ScriptedModelServerOptions['validation']>;
    countOnly: boolean;
  },
): ScreenedRequest {
  const method = incoming.method ?? 'GET';
  const knownPath =
    method === 'POST' &&
    (path === '/v1/messages' || path === '/v1/chat/completions' || path === '/v1/responses' || countOnly);
  if (!knownPath) {
    const error: WireError = {
      status: 404,
      message: `scripted model server: no route for ${method} ${path}`,
      anthropicType: 'not_found_error',
      openAIType: 'invalid_request_error',
    };
    return { kind: 'reject', body: {}, stream: false, outcome: 'not-found', error };
  }
  const body = parseJsonObject(rawBody);
  if (body === undefined) {
    const error = invalidRequest('The request body is not valid JSON.', 'body');
    return { kind: 'reject', body: {}, stream: false, outcome: 'invalid-request', error };
  }
  const stream = body.stream === true;
  if (!hasApiKey(incoming)) {
    const error: WireError = {
      status: 401,
      message: api === 'anthropic' ? 'invalid x-api-key' : "You didn't provide an API key.",
      anthropicType: 'authentication_error',
      openAIType: 'invalid_request_error',
      code: api === 'openai' ? 'invalid_api_key' : null,
    };
    return { kind: 'reject', body, stream, outcome: 'unauthorized', error };
  }
  const shapeError =
    api === 'responses'
      ? checkResponsesRequest(body, validation)
      : checkRequestShape(api, body, incoming, validation, countOnly);
  if (shapeError) return { kind: 'reject', body, stream, outcome: 'invalid-request', error: shapeError };
  return { kind: 'accept', body, stream };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    return isObject ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A 500 that the SDKs do not retry: the script or the server is wrong, not the request. */
function serverBug(message: string): WireError {
  return {
    status: 500,
    message,
    anthropicType: 'api_error',
    openAIType: 'server_error',
    headers: { 'x-should-retry': 'false' },
  };
}

function created(): number {
  return Math.floor(Date.now() / 1000);
}

function textBlocks(text: string): AnswerBlock[] {
  return text === '' ? [] : [{ type: 'text', text }];
}

function outputTokensOf(block: AnswerBlock): number {
  return block.type === 'text'
    ? Math.ceil(block.text.length / 4)
    : estimateTokens(block.input) + Math.ceil(block.name.length / 4);
}

function streamHeaders(api: ScriptedApi): Record<string, string> {
  return {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    [api === 'anthropic' ? 'request-id' : 'x-request-id']: `req_scripted_${Date.now()}`,
  };
}

function answerId(api: ScriptedApi, counter: number): string {
  switch (api) {
    case 'anthropic':
      return `msg_scripted_${counter}`;
    case 'openai':
      return `chatcmpl-scripted-${counter}`;
    case 'responses':
      return `resp_scripted_${counter}`;
    case 'gemini':
      return `scripted-${counter}`;
    default: {
      const unreachable: never = api;
      throw new Error(`unknown api ${String(unreachable)}`);
    }
  }
}

function streamParts(api: ScriptedApi, answer: Answer): string[] {
  if (api === 'responses') return responsesEvents(answer as ResponsesAnswer);
  return api === 'anthropic' ? anthropicEvents(answer) : openAIChunks(answer, created());
}

function answerBody(api: ScriptedApi, answer: Answer): Record<string, unknown> {
  if (api === 'responses') return responsesObject(answer as ResponsesAnswer);
  return api === 'anthropic' ? anthropicMessage(answer) : openAICompletion(answer, created());
}

function writeAnswer(response: ServerResponse, api: ScriptedApi, stream: boolean, answer: Answer): void {
  if (stream) {
    response.writeHead(200, streamHeaders(api));
    for (const part of streamParts(api, answer)) response.write(part);
    response.end();
    return;
  }
  const body = answerBody(api, answer);
  response.writeHead(200, {
    'content-type': 'application/json',
    [api === 'anthropic' ? 'request-id' : 'x-request-id']: `req_scripted_${Date.now()}`,
  });
  response.end(JSON.stringify(body));
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.on('error', reject);
  });
}

function visibleHeaders(incoming: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (hiddenHeaders.has(name) || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function hasApiKey(incoming: IncomingMessage): boolean {
  const key = incoming.headers['x-api-key'] ?? incoming.headers['api-key'] ?? incoming.headers.authorization;
  return typeof key === 'string' && key.trim() !== '' && key.trim() !== 'Bearer';
}

function invalidRequest(message: string, param: string | null): WireError {
  return {
    status: 400,
    message,
    anthropicType: 'invalid_request_error',
    openAIType: 'invalid_request_error',
    param,
    code: null,
  };
}

function promptTooLong(api: ScriptedApi, tokens: number, contextWindow: number): WireError {
  return api === 'anthropic'
    ? invalidRequest(`prompt is too long: ${tokens} tokens > ${contextWindow} maximum`, null)
    : {
        ...invalidRequest(
          `This model's maximum context length is ${contextWindow} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
          'messages',
        ),
        code: 'context_length_exceeded',
      };
}

function requestedMaxTokens(body: Record<string, unknown>): number {
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

function countCacheControl(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countCacheControl(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  const own = (value as { cache_control?: unknown }).cache_control ? 1 : 0;
  return own + Object.values(value).reduce((sum: number, item) => sum + countCacheControl(item), 0);
}

/** The checks the provider makes before it looks at the conversation, then the conversation itself. */
function checkRequestShape(
  api: ScriptedApi,
  body: Record<string, unknown>,
  incoming: IncomingMessage,
  validation: 'provider-rules' | 'off',
  countOnly: boolean,
): WireError | undefined {
  if (api === 'anthropic') {
    if (typeof incoming.headers['anthropic-version'] !== 'string') {
      return invalidRequest('anthropic-version: header is required', null);
    }
    if (typeof body.model !== 'string' || body.model === '')
      return invalidRequest('model: Field required', 'model');
    const maxTokensValid =
      typeof body.max_tokens === 'number' && Number.isInteger(body.max_tokens) && body.max_tokens >= 1;
    if (!countOnly && !maxTokensValid) {
      return invalidRequest('max_tokens: Field required', 'max_tokens');
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return invalidRequest('messages: at least one message is required', 'messages');
    }
  } else {
    if (typeof body.model !== 'string' || body.model === '') {
      return invalidRequest('you must provide a model parameter', null);
    }
    if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
      return {
        ...invalidRequest(
          "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
          'stream_options',
        ),
        code: 'invalid_value',
      };
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return {
        ...invalidRequest("Missing required parameter: 'messages'.", 'messages'),
        code: 'missing_required_parameter',
      };
    }
  }
  if (api === 'anthropic') {
    const breakpoints = countCacheControl([body.tools, body.system, body.messages]);
    if (breakpoints > 4) {
      return invalidRequest(
        `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`,
        null,
      );
    }
  }
  if (validation === 'off') return undefined;
  const unknown = unknownContentType(api, body.messages);
  if (unknown) {
    return api === 'anthropic'
      ? invalidRequest(
          `${unknown.path}: Input tag '${unknown.type}' found using 'type' does not match any of the expected tags`,
          unknown.path,
        )
      : {
          ...invalidRequest(
            `Invalid value: '${unknown.type}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.`,
            `${unknown.path}.type`,
          ),
          code: 'invalid_value',
        };
  }
  const problems = validateMessages(body.messages, {
    format: api,
    ...(api === 'anthropic' && body.system !== undefined ? { system: body.system } : {}),
    // Mid-conversation system messages are accepted only under their beta, as the API does.
    ...(api === 'anthropic' && allowsSystemMessages(incoming.headers['anthropic-beta'])
      ? { systemMessages: true }
      : {}),
  });
  const [first] = problems;
  if (!first) return undefined;
  return api === 'anthropic'
    ? invalidRequest(`${first.path}: ${first.message}`, first.path)
    : {
        ...invalidRequest(`Invalid parameter: ${first.path}: ${first.message}`, first.path),
        code: 'invalid_value',
      };
}
