/**
 * What `--recall` does differently per wire format, behind one interface: the recall code looks
 * the format up (`proxyWires[format].recall`, ../wire/proxy-wires.ts) instead of switching on its name. It
 * lives in the proxy, not in the core's `WireDialect`, because it is about answering a tool call
 * on the wire (held streams, follow-up requests), which only the proxy does.
 */
import { recallTool } from 'agent-compact/recall';
import type { WireFormat } from 'agent-compact/wire';
import type { SseEvent } from './sse-events.js';

/** The tool's name; a client tool of the same name keeps it (the proxy then adds nothing). */
export const RECALL_TOOL_NAME = recallTool.name;

export type JsonRecord = Record<string, unknown>;

/** One tool call of an answer, in no format's shape. */
export interface ToolCall {
  id: string;
  name: unknown;
  input: unknown;
}

/** The text the proxy recalled for one call. */
export interface RecallResult {
  id: string;
  output: string;
}

/** A server-sent event that carries JSON data. */
export type DataEvent = SseEvent & { data: JsonRecord };

/** Collects one streamed answer. */
export interface StreamAssembler {
  add(event: SseEvent): void;
  /** True once the model has begun a recall call. */
  readonly recallStarted: boolean;
  /** The whole answer as the API's plain (non-streamed) body. */
  answer(): JsonRecord;
}

/** One format's recall: its tool, its calls in an answer or a stream, and the follow-up request. */
export interface RecallWire {
  /** The format this speaks; its key in `proxyWires`. */
  readonly format: WireFormat;
  /**
   * The tools a request declares elsewhere than its `tools` field (Codex on its default model
   * declares them in an `additional_tools` input item), nested ones included.
   */
  toolsElsewhere?(body: JsonRecord): unknown[];
  /** True when the request asks for a streamed answer. */
  isStreamed(url: URL, body: JsonRecord): boolean;
  /** The request's tools (a non-empty list) with the `recall` tool declared. */
  withRecallTool(tools: readonly unknown[]): unknown[];
  /** The function names one entry of a request's `tools` declares, read in this format's shape. */
  declaredNames(tool: unknown): unknown[];
  /**
   * The request asking for an answer without tool calls (the provider's tool choice `none`): the
   * last recall round's, so the model answers from what it recalled instead of calling again.
   */
  forbidToolCalls(body: JsonRecord): JsonRecord;
  /** Every tool call of a complete (non-streamed) answer. */
  toolCalls(answer: JsonRecord): ToolCall[];
  /** The answer without its recall calls (when the model called client tools in the same turn). */
  withoutRecallCalls(answer: JsonRecord): JsonRecord;
  /**
   * The conversation that continues after `answer`: the model's turn with only its recall calls
   * (client calls get no result here), then the results. `request` is the body that was answered.
   */
  followUp(
    conversation: readonly unknown[],
    answer: JsonRecord,
    results: readonly RecallResult[],
    request: JsonRecord,
  ): unknown[];
  /**
   * The conversation items of a whole (non-streamed, or assembled) answer as the model gave it:
   * what goes into the history after the recall rounds the client never saw.
   */
  answerItems(answer: JsonRecord, request: JsonRecord): unknown[];
  /** True for a conversation item the model wrote (an assistant turn, an output item). */
  isAnswerItem(item: unknown): boolean;
  /** A collector for one streamed answer. */
  createAssembler(): StreamAssembler;
  /** Held events without the recall calls, indexes closed up so the stream stays well-formed. */
  withoutRecallEvents(events: readonly SseEvent[]): SseEvent[];
  /** True for an event that opens a numbered block or output item (a follow-up numbers after them). */
  opensIndex(event: SseEvent): boolean;
  /**
   * A follow-up round's event as the client should see it: `undefined` for one that opens an
   * answer (the client has had it), indexes moved past the `opened` already sent.
   */
  continuedEvent(event: DataEvent, opened: number): string | undefined;
}
