import type { ResponsesInputItem } from '../core/conversation/responses-types.js';

/**
 * An Agents SDK input item as this module reads it: the protocol's items are plain JSON objects
 * (`AgentInputItem`); only the fields the conversion touches are named.
 */
export type AgentItem = Record<string, unknown>;

/** Agents SDK items as Responses API input, and what is needed to turn the compacted input back. */
export interface ResponsesView {
  input: ResponsesInputItem[];
  /** The original Agents item of each Responses item, by the Responses item's JSON. */
  originals: Map<string, AgentItem>;
  /** A tool's name by call id, for results the compactor rewrote. */
  callNames: Map<string, string>;
  /** Item types the conversion does not know; they pass through whole. */
  unknownTypes: string[];
}

/** Types the Responses reader understands; any other item is kept whole as an opaque block. */
const knownTypes = new Set(['message', 'function_call', 'function_call_result', 'reasoning', 'compaction']);

/** Agents SDK items → Responses input items (`callId` → `call_id`, results → `function_call_output`). */
export function toResponsesView(items: readonly AgentItem[]): ResponsesView {
  const view: ResponsesView = { input: [], originals: new Map(), callNames: new Map(), unknownTypes: [] };
  for (const item of items) {
    const type = typeof item.type === 'string' ? item.type : 'role' in item ? 'message' : 'unknown';
    if (!knownTypes.has(type)) view.unknownTypes.push(type);
    const converted = toResponsesItem(item, type);
    if (type === 'function_call' && typeof item.callId === 'string' && typeof item.name === 'string') {
      view.callNames.set(item.callId, item.name);
    }
    view.originals.set(JSON.stringify(converted), item);
    view.input.push(converted);
  }
  return view;
}

function toResponsesItem(item: AgentItem, type: string): ResponsesInputItem {
  if (type === 'function_call') {
    const { callId, providerData: _, status: __, ...rest } = item;
    return { ...rest, type: 'function_call', call_id: callId } as unknown as ResponsesInputItem;
  }
  if (type === 'function_call_result') {
    return {
      type: 'function_call_output',
      call_id: item.callId,
      output: outputText(item.output),
    } as ResponsesInputItem;
  }
  return item as unknown as ResponsesInputItem;
}

/** A tool result's output as the text the model reads. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output && typeof output === 'object' && (output as AgentItem).type === 'text') {
    return String((output as AgentItem).text ?? '');
  }
  return JSON.stringify(output);
}

/**
 * Compacted Responses input → Agents SDK items. An item the compactor left as it was comes back as
 * the caller's own object; placeholders, summaries and shortened items are written fresh.
 */
export function fromResponsesView(input: readonly ResponsesInputItem[], view: ResponsesView): AgentItem[] {
  return input.map((item) => view.originals.get(JSON.stringify(item)) ?? toAgentItem(item, view));
}

function toAgentItem(item: ResponsesInputItem, view: ResponsesView): AgentItem {
  const record = item as unknown as AgentItem;
  if (record.type === 'function_call_output') {
    const callId = String(record.call_id);
    return {
      type: 'function_call_result',
      callId,
      name: view.callNames.get(callId) ?? 'unknown',
      status: 'completed',
      output: {
        type: 'text',
        text: typeof record.output === 'string' ? record.output : JSON.stringify(record.output),
      },
    };
  }
  if (record.type === 'function_call') {
    const { call_id, ...rest } = record;
    return { ...rest, callId: call_id, status: 'completed' };
  }
  if (record.role === 'assistant') {
    const content =
      typeof record.content === 'string' ? [{ type: 'output_text', text: record.content }] : record.content;
    return { ...record, content, status: record.status ?? 'completed' };
  }
  return record;
}
