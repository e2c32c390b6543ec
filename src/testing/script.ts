/** What the scripted model server answers, one step per request. */
import type { WireFormat } from 'agent-compact/wire';

/** One tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** The call id. @default `toolu_scripted_N` (Anthropic) or `call_scripted_N` (OpenAI) */
  id?: string;
  /** The tool's name. */
  name: string;
  /**
   * The tool's input, a JSON object. For a Responses `custom` tool the request declares (Codex's
   * `exec`), `{ input: 'free-form text' }`: the answer is a `custom_tool_call` with that input.
   */
  input: Record<string, unknown>;
}

/**
 * One answer of the scripted model server. A plain string is short for `{ type: 'text', text }`.
 *
 * - `text`: an assistant text answer; cut at the request's `max_tokens` like a real model
 *   (`stop_reason: 'max_tokens'` / `finish_reason: 'length'`).
 * - `tool-calls`: optional text, then tool calls (`stop_reason: 'tool_use'` / `'tool_calls'`).
 * - `rate-limit`: HTTP 429 with a `retry-after` header, in the provider's error shape.
 * - `server-error`: HTTP 500 (or the given 5xx status) in the provider's error shape.
 * - `hang`: never answers; the request stays open until the client gives up or the server closes.
 * - `drop-connection`: sends the status line and part of the body, then destroys the socket.
 * - `stream-error`: a streamed answer starts with a 200, then carries the provider's error event
 *   and ends (Anthropic `event: error`, a Responses `error` event, a Chat or Gemini chunk holding
 *   an `error`): an overload mid-answer. A request that did not ask to stream gets the error as
 *   `server-error` answers it. @default status 529 (Anthropic `overloaded_error`)
 * - `empty`: a well-formed answer with no content (Anthropic `content: []`, OpenAI `content: ""`).
 * - `oversize`: a text answer far longer than `max_tokens` allows, with honest usage.
 */
export type ScriptStep =
  | string
  | { type: 'text'; text: string }
  | { type: 'tool-calls'; text?: string; calls: ScriptedToolCall[] }
  | {
      type: 'rate-limit';
      /** Seconds in the `retry-after` header. @default 1 */
      retryAfterSeconds?: number;
      message?: string;
    }
  | { type: 'server-error'; status?: 500 | 502 | 503 | 529; message?: string }
  | { type: 'hang' }
  | { type: 'drop-connection' }
  | { type: 'stream-error'; status?: 500 | 502 | 503 | 529; message?: string }
  | { type: 'empty' }
  | {
      type: 'oversize';
      /** Output tokens of the answer. @default ten times the request's max_tokens */
      tokens?: number;
    };

/** One request the server received, as recorded. */
export interface RecordedRequest {
  /** Zero-based position among all requests this server received. */
  index: number;
  /** Which API the path belongs to. */
  api: WireFormat;
  method: string;
  /** The request path, e.g. `/v1/messages`. */
  path: string;
  /** Request headers in lower case, without `authorization`, `x-api-key`, `api-key` and `x-goog-api-key` (a `?key=` is not in `path`). */
  headers: Record<string, string>;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** True when the request asked for server-sent events. */
  stream: boolean;
  /** Input tokens by the server's estimate (see {@link estimateTokens}). */
  inputTokens: number;
  /** How the server answered: the step's type, or one of the other {@link ResponseOutcome}s. */
  outcome: ResponseOutcome;
}

/** How the server answered one request. */
export type ResponseOutcome =
  | Exclude<ScriptStep, string>['type']
  | 'invalid-request'
  | 'prompt-too-long'
  | 'unauthorized'
  | 'script-exhausted'
  | 'not-found'
  /** `POST /v1/messages/count_tokens`, answered with the estimate; no script step is used. */
  | 'count-tokens';

/** A script: steps answered in order, or a function choosing the step for each request. */
export type Script =
  | readonly ScriptStep[]
  | ((request: Omit<RecordedRequest, 'outcome'>) => ScriptStep | Promise<ScriptStep>);

/** A step in its long form. */
export type ScriptStepObject = Exclude<ScriptStep, string>;

/** Turns the string shorthand into its long form. */
export function normalizeStep(step: ScriptStep): ScriptStepObject {
  return typeof step === 'string' ? { type: 'text', text: step } : step;
}
