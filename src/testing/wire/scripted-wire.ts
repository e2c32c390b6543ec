/**
 * What the scripted model server does differently per wire format, behind one interface: the
 * server looks the format up (`scriptedWires`, ./scripted-wires.ts) instead of switching on its
 * name. It lives here, not in the core's `WireDialect`, because it writes to a node socket.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { WireFormat } from 'agent-compact/wire';
import type { Answer, WireError } from '../_wire.js';
import type { PromptCache } from '../prompt-usage.js';
import type { RecordedRequest, ScriptStepObject } from '../script.js';

/** One request as the server hands it to a format. */
export interface ScriptedExchange {
  incoming: IncomingMessage;
  response: ServerResponse;
  rawBody: string;
  /** What every record of this request starts with (index, path, headers…). */
  seen: Omit<RecordedRequest, 'outcome' | 'body' | 'stream' | 'inputTokens'>;
  validation: 'provider-rules' | 'off';
  contextWindow: number | undefined;
  /** The server's prompt cache, shared by every format. */
  cache: PromptCache;
  chooseStep(request: Omit<RecordedRequest, 'outcome'>): Promise<ScriptStepObject | undefined>;
  record(request: RecordedRequest): void;
  /** This answer's number in the server, for ids and signatures. */
  answerNumber(): number;
}

/** One format's side of the scripted server: its routes, its answer and its error shape. */
export interface ScriptedWire {
  /** The format this speaks; its key in `scriptedWires`. */
  readonly format: WireFormat;
  /** True when `path` belongs to this format's API (its routes or a wrong method on them). */
  servesPath(path: string): boolean;
  /** Answers one request to this format's API, recording it. */
  handle(exchange: ScriptedExchange): Promise<void>;
  /** An error answer's JSON body in this format's shape. */
  errorBody(error: WireError): Record<string, unknown>;
}

/**
 * The pieces of a format that answers through the shared flow (screen, count, check the window,
 * answer the script's step): Anthropic, Chat Completions and Responses.
 */
export interface AnswerWriter {
  readonly format: WireFormat;
  /** The POST routes the API answers, e.g. `/v1/messages`. */
  readonly paths: readonly string[];
  /** The route that counts a request's tokens without answering, when the API has one. */
  readonly countPath?: string;
  /** The header that carries the request id. */
  readonly requestIdHeader: string;
  /** Tool call ids start with this (`toolu`, `call`). */
  readonly toolCallPrefix: string;
  /** True when the answer reports cache writes apart from reads (Anthropic's `cache_creation_input_tokens`). */
  readonly reportsCacheWrites: boolean;
  answerId(counter: number): string;
  /** The 401 for a request without a key. */
  unauthorized(): WireError;
  /** The first check the API fails `body` on, in its own words; undefined when it would answer. */
  checkRequest(request: CheckedRequest): WireError | undefined;
  /** The 400 for a prompt over the context window. */
  promptTooLong(tokens: number, contextWindow: number): WireError;
  /** What this format's answers carry beyond {@link Answer} (Responses: reasoning, echoed fields). */
  answerExtras?(body: Record<string, unknown>, answerNumber: number): object;
  /** The server-sent events of a streamed answer. */
  streamParts(answer: Answer): string[];
  /** The JSON body of a plain answer. */
  answerBody(answer: Answer): Record<string, unknown>;
  /** The event that reports `error` inside a stream after `eventsBefore` events of an answer. */
  streamError(error: WireError, eventsBefore: number): string;
  errorBody(error: WireError): Record<string, unknown>;
}

/** A request's parts that its checks read. */
export interface CheckedRequest {
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  validation: 'provider-rules' | 'off';
  /** True on the API's count route (no `max_tokens` needed). */
  countOnly: boolean;
}
