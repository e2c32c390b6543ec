/**
 * A held-back stream in which the model called `recall` and the client's own tools in the same
 * turn: the proxy cannot answer the recall without dropping the client's calls, so it passes the
 * turn on as a plain (non-streamed) answer would be — the client's calls whole, the recall calls
 * taken out, block / call / output indexes closed up so the client sees a well-formed stream.
 */
import type { ProxyApi } from '../routes.js';
import { geminiEventsWithoutRecall } from './gemini-recall.js';
import { RECALL_TOOL_NAME } from './recall-calls.js';
import { rewriteEvent, type SseEvent } from './sse-events.js';

/** The held events without the recall calls, renumbered; `undefined` entries are dropped events. */
export function withoutRecallEvents(api: ProxyApi, events: readonly SseEvent[]): SseEvent[] {
  switch (api) {
    case 'anthropic':
      return renumbered(events, recallIndexes(events, anthropicRecallIndex), 'index');
    case 'openai':
      return chatWithoutRecall(events);
    case 'responses':
      return renumbered(events, recallIndexes(events, responsesRecallIndex), 'output_index').map(
        withoutRecallOutput,
      );
    case 'gemini':
      return geminiEventsWithoutRecall(events);
    default: {
      const unreachable: never = api;
      throw new Error(`unknown API ${String(unreachable)}`);
    }
  }
}

function recallIndexes(
  events: readonly SseEvent[],
  indexOf: (data: Record<string, unknown>) => number | undefined,
): Set<number> {
  const indexes = new Set<number>();
  for (const { data } of events) {
    const index = data ? indexOf(data) : undefined;
    if (index !== undefined) indexes.add(index);
  }
  return indexes;
}

function anthropicRecallIndex(data: Record<string, unknown>): number | undefined {
  const block = data.content_block as { type?: unknown; name?: unknown } | undefined;
  return data.type === 'content_block_start' &&
    block?.type === 'tool_use' &&
    block.name === RECALL_TOOL_NAME &&
    typeof data.index === 'number'
    ? data.index
    : undefined;
}

function responsesRecallIndex(data: Record<string, unknown>): number | undefined {
  const item = data.item as { type?: unknown; name?: unknown } | undefined;
  return data.type === 'response.output_item.added' &&
    item?.type === 'function_call' &&
    item.name === RECALL_TOOL_NAME &&
    typeof data.output_index === 'number'
    ? data.output_index
    : undefined;
}

/** Drops the events of the recall indexes and moves later indexes down past them. */
function renumbered(events: readonly SseEvent[], recall: Set<number>, field: string): SseEvent[] {
  if (recall.size === 0) return [...events];
  const kept: SseEvent[] = [];
  for (const event of events) {
    const index = event.data?.[field];
    if (typeof index !== 'number') kept.push(event);
    else if (!recall.has(index))
      kept.push(withData(event, { ...event.data, [field]: closedUp(index, recall) }));
  }
  return kept;
}

function closedUp(index: number, removed: Set<number>): number {
  let below = 0;
  for (const gone of removed) if (gone < index) below += 1;
  return index - below;
}

/** The closing `response.completed` (or `.incomplete`) carries the whole output: recall items leave it. */
function withoutRecallOutput(event: SseEvent): SseEvent {
  const response = event.data?.response as { output?: unknown } | undefined;
  if (!response || !Array.isArray(response.output)) return event;
  const output = response.output.filter(
    (item: { type?: unknown; name?: unknown }) =>
      !(item?.type === 'function_call' && item.name === RECALL_TOOL_NAME),
  );
  return withData(event, { ...event.data, response: { ...response, output } });
}

type ChatCallPart = { index?: unknown; function?: { name?: unknown } };

/** Chat chunks: tool call parts are numbered by `index`, and only the first part names the call. */
function chatWithoutRecall(events: readonly SseEvent[]): SseEvent[] {
  const names = new Map<number, string>();
  for (const { data } of events) {
    for (const part of chatParts(data)) {
      if (typeof part.index !== 'number') continue;
      const name = part.function?.name;
      if (typeof name === 'string') names.set(part.index, (names.get(part.index) ?? '') + name);
    }
  }
  const recall = new Set([...names].filter(([, name]) => name === RECALL_TOOL_NAME).map(([index]) => index));
  if (recall.size === 0) return [...events];
  return events.map((event) => {
    const parts = chatParts(event.data);
    if (parts.length === 0 || !event.data) return event;
    const kept = parts
      .filter((part) => typeof part.index !== 'number' || !recall.has(part.index))
      .map((part) =>
        typeof part.index === 'number' ? { ...part, index: closedUp(part.index, recall) } : part,
      );
    const [choice, ...rest] = event.data.choices as Record<string, unknown>[];
    const { tool_calls: _calls, ...delta } = (choice?.delta ?? {}) as Record<string, unknown>;
    const newDelta = kept.length > 0 ? { ...delta, tool_calls: kept } : delta;
    return withData(event, { ...event.data, choices: [{ ...choice, delta: newDelta }, ...rest] });
  });
}

function chatParts(data: Record<string, unknown> | undefined): ChatCallPart[] {
  const delta = (data?.choices as { delta?: { tool_calls?: unknown } }[] | undefined)?.[0]?.delta;
  return Array.isArray(delta?.tool_calls) ? (delta.tool_calls as ChatCallPart[]) : [];
}

function withData(event: SseEvent, data: Record<string, unknown>): SseEvent {
  return { ...event, raw: rewriteEvent(event, data), data };
}
