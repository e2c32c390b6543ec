import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serverBug } from './_answer-request.js';
import { writeError } from './_wire.js';
import { PromptCache } from './prompt-usage.js';
import { normalizeStep, type RecordedRequest, type Script, type ScriptStepObject } from './script.js';
import { fallbackWire, scriptedWireOf } from './wire/scripted-wires.js';

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
    const wire = scriptedWireOf(path);
    const seen = {
      index,
      api: wire.format,
      method: incoming.method ?? 'GET',
      path,
      headers: visibleHeaders(incoming),
    };
    const rawBody = await readBody(incoming);
    await wire.handle({
      incoming,
      response,
      rawBody,
      seen,
      validation,
      contextWindow,
      cache,
      chooseStep,
      record: (request) => requests.push(request),
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
    fallbackWire.errorBody,
    serverBug(`scripted model server failed: ${error instanceof Error ? error.message : String(error)}`),
  );
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
