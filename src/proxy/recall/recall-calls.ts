/**
 * The `recall` tool in a request, the model's recall calls in an answer, and the follow-up request
 * that carries their results — so the proxy can answer recall calls itself. Each format's shape is
 * its `RecallWire` (`proxyWires[api].recall`).
 */

import type { WireFormat } from 'agent-compact/wire';
import { conversationOf, withConversation } from '../request-conversation.js';
import { proxyWires } from '../wire/proxy-wires.js';
import { type JsonRecord, RECALL_TOOL_NAME, type RecallResult } from './recall-wire.js';

export { RECALL_TOOL_NAME };

/** One recall call the model made. */
export interface RecallCall {
  id: string;
  input: unknown;
}

/** The body with the `recall` tool added, when it has tools of its own and no `recall` yet. */
export function withRecallTool(api: WireFormat, body: JsonRecord): JsonRecord {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (declaredTools(body).length === 0 || hasRecallTool(body)) return body;
  return { ...body, tools: proxyWires[api].recall.withRecallTool(tools) };
}

/** True when the request's tools include the proxy's `recall` tool (in any API's shape). */
export function hasRecallTool(body: JsonRecord): boolean {
  const wires = Object.values(proxyWires).map((wire) => wire.recall);
  return declaredTools(body).some((tool) =>
    wires.some((wire) => wire.declaredNames(tool).includes(RECALL_TOOL_NAME)),
  );
}

/** Every tool the request declares: its `tools`, and those some APIs declare elsewhere. */
function declaredTools(body: JsonRecord): unknown[] {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const elsewhere = Object.values(proxyWires).flatMap((wire) => wire.recall.toolsElsewhere?.(body) ?? []);
  return [...tools, ...elsewhere];
}

/** The answer's tool calls, split into recall calls and the client's own. */
export function toolCallsOf(api: WireFormat, answer: JsonRecord): { recall: RecallCall[]; others: number } {
  const recall: RecallCall[] = [];
  let others = 0;
  for (const call of proxyWires[api].recall.toolCalls(answer)) {
    if (call.name === RECALL_TOOL_NAME) recall.push({ id: call.id, input: call.input });
    else others += 1;
  }
  return { recall, others };
}

/** The answer without its recall calls (when the model called client tools in the same turn). */
export function withoutRecallCalls(api: WireFormat, answer: JsonRecord): JsonRecord {
  return proxyWires[api].recall.withoutRecallCalls(answer);
}

/**
 * The request that continues after the answer, with the recall results as tool results; with
 * `last`, it asks for an answer without tool calls (the rounds are spent).
 */
export function followUpBody(
  api: WireFormat,
  body: JsonRecord,
  answer: JsonRecord,
  results: readonly RecallResult[],
  last: boolean,
): JsonRecord {
  const { recall } = proxyWires[api];
  const conversation = conversationOf(api, body) ?? [];
  const next = withConversation(api, body, recall.followUp(conversation, answer, results, body));
  return last ? recall.forbidToolCalls(next) : next;
}
