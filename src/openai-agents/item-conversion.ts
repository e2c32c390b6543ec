import type { ResponsesContentPart, ResponsesInputItem } from '../core/conversation/responses-types.js';

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
      output: responsesOutput(item.output),
    } as ResponsesInputItem;
  }
  return item as unknown as ResponsesInputItem;
}

/**
 * A tool result's output as Responses output: text as text, and images (a screenshot tool's
 * `{ type: 'image', image }`, or `input_text` / `input_image` parts) as `input_image` parts, which
 * the compactor counts as the image they are. As JSON text, a 300 kB screenshot counted 105,000
 * tokens and forced a hard compaction that dropped it. Anything else is read as its JSON.
 */
function responsesOutput(output: unknown): string | ResponsesContentPart[] {
  if (typeof output === 'string') return output;
  if (isRecord(output) && output.type === 'text') return String(output.text ?? '');
  const parts = (Array.isArray(output) ? output : [output]).map(responsesPart);
  return parts.every((part) => part !== undefined)
    ? (parts as ResponsesContentPart[])
    : JSON.stringify(output);
}

function responsesPart(part: unknown): ResponsesContentPart | undefined {
  if (!isRecord(part)) return undefined;
  if ((part.type === 'text' || part.type === 'input_text') && typeof part.text === 'string') {
    return { type: 'input_text', text: part.text };
  }
  if (part.type !== 'image' && part.type !== 'input_image') return undefined;
  const source = imageSource(part.image);
  const detail = typeof part.detail === 'string' ? part.detail : 'auto';
  return source && { type: 'input_image', detail, ...source };
}

/** Where an Agents SDK image is: a URL (a `data:` URL for inline bytes) or an uploaded file. */
function imageSource(image: unknown): { image_url: string } | { file_id: string } | undefined {
  if (typeof image === 'string') return { image_url: image };
  if (!isRecord(image)) return undefined;
  if (typeof image.url === 'string') return { image_url: image.url };
  if (typeof image.fileId === 'string') return { file_id: image.fileId };
  if (typeof image.id === 'string') return { file_id: image.id };
  if (typeof image.data === 'string') {
    const mediaType = typeof image.mediaType === 'string' ? image.mediaType : 'image/png';
    return { image_url: `data:${mediaType};base64,${image.data}` };
  }
  return undefined;
}

/** An Agents SDK output part for a Responses part the compactor wrote back. */
function agentPart(part: ResponsesContentPart): AgentItem | undefined {
  if (part.type === 'input_text' && typeof part.text === 'string')
    return { type: 'input_text', text: part.text };
  if (part.type !== 'input_image') return undefined;
  const image =
    typeof part.image_url === 'string'
      ? part.image_url
      : typeof part.file_id === 'string'
        ? { id: part.file_id }
        : undefined;
  return image === undefined ? undefined : { type: 'input_image', image, detail: part.detail ?? 'auto' };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
    const parts = Array.isArray(record.output)
      ? (record.output as ResponsesContentPart[]).map(agentPart)
      : undefined;
    return {
      type: 'function_call_result',
      callId,
      name: view.callNames.get(callId) ?? 'unknown',
      status: 'completed',
      output: parts?.every((part) => part !== undefined)
        ? parts
        : {
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
