/**
 * Requests the proxy sends upstream as they came, without compacting them: a stateful one (its
 * history lives on the provider), and one with a field whose JSON type the provider rejects but
 * the compaction would read past (`"model": 5`, a chat message's `"name": 5`), so the proxy neither
 * compacts nor pays a summary call for a request the provider answers with a 400 anyway.
 */
import type { WireFormat } from 'agent-compact/wire';
import type { ProxyRequestRecord } from './proxy-stats.js';
import { conversationField, conversationOf } from './request-conversation.js';
import { proxyWires } from './wire/proxy-wires.js';

/** Why a request goes upstream as it came (how its record says so), or undefined to compact it. */
export function asSentReason(
  api: WireFormat,
  body: Record<string, unknown>,
): Pick<ProxyRequestRecord, 'passthrough'> | Pick<ProxyRequestRecord, 'fallback'> | undefined {
  const stateful = statefulReason(api, body);
  if (stateful !== undefined) return { passthrough: stateful };
  // The provider rejects it whatever the proxy does.
  const wrongType = wrongTypeReason(api, body);
  if (wrongType !== undefined) return { fallback: `request not compacted: ${wrongType}` };
  return undefined;
}

/**
 * Why a request must go upstream as it came, if it must: its history lives on the provider
 * (`previous_response_id`, `conversation`, item references), so compacting the part it carries
 * would drop what the stored part refers to.
 */
export function statefulReason(api: WireFormat, body: Record<string, unknown>): string | undefined {
  if (coveredByProviderCompaction(conversationOf(api, body))) return 'provider compaction';
  return proxyWires[api].checks.statefulReason?.(body);
}

/**
 * True when a provider compaction covers all of the conversation: the latest `compaction` block
 * (or Responses item) sits in the last turn or the one before it, so nothing is left to compact.
 */
function coveredByProviderCompaction(conversation: unknown[] | undefined): boolean {
  if (conversation === undefined || conversation.length === 0) return false;
  const holdsCompaction = (item: unknown): boolean => {
    const record = item as { type?: unknown; content?: unknown } | undefined;
    if (record?.type === 'compaction') return true;
    return (
      Array.isArray(record?.content) &&
      record.content.some((block: { type?: unknown } | undefined) => block?.type === 'compaction')
    );
  };
  return conversation.slice(-2).some(holdsCompaction);
}

type JsonType = 'string' | 'number' | 'boolean' | 'array' | 'object';

/** Field → the JSON types the API takes there (null and absent always pass: optional fields). */
type FieldTypes = Record<string, readonly JsonType[]>;

const sampling: FieldTypes = { temperature: ['number'], top_p: ['number'], stream: ['boolean'] };

/** The request's own fields, per API (Gemini names its model in the URL). */
const bodyFields: Record<WireFormat, FieldTypes> = {
  anthropic: {
    ...sampling,
    model: ['string'],
    max_tokens: ['number'],
    system: ['string', 'array'],
    tools: ['array'],
    stop_sequences: ['array'],
    top_k: ['number'],
  },
  openai: {
    ...sampling,
    model: ['string'],
    max_tokens: ['number'],
    max_completion_tokens: ['number'],
    tools: ['array'],
    n: ['number'],
  },
  responses: {
    ...sampling,
    model: ['string'],
    instructions: ['string', 'array'],
    max_output_tokens: ['number'],
    tools: ['array'],
    store: ['boolean'],
  },
  gemini: {
    systemInstruction: ['object'],
    tools: ['array'],
    generationConfig: ['object'],
    // The proto's names, which the API reads as well.
    system_instruction: ['object'],
    generation_config: ['object'],
  },
};

/** The fields of one conversation item, per API (the validator checks roles, content and tool pairs). */
const itemFields: Record<WireFormat, FieldTypes> = {
  anthropic: { role: ['string'] },
  openai: { role: ['string'], name: ['string'], tool_call_id: ['string'], tool_calls: ['array'] },
  responses: { type: ['string'], id: ['string'], status: ['string'], call_id: ['string'] },
  gemini: { role: ['string'], parts: ['array'] },
};

/** The first field of `body` (or of an item of its conversation) whose JSON type the API rejects. */
export function wrongTypeReason(api: WireFormat, body: Record<string, unknown>): string | undefined {
  const wrong = wrongField(body, bodyFields[api], '');
  if (wrong) return wrong;
  const items = conversationOf(api, body) ?? [];
  const field = conversationField(api);
  for (const [index, item] of items.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item) || checkedItems.has(item)) continue;
    const found = wrongField(item as Record<string, unknown>, itemFields[api], `${field}[${index}].`);
    if (found) return found;
    checkedItems.add(item);
  }
  return undefined;
}

/**
 * Items already found well typed. A session's next body is built from the objects of its last one
 * up to what is new (`appended-body.ts`), so a request checks only its new items, not its history.
 */
const checkedItems = new WeakSet<object>();

function wrongField(record: Record<string, unknown>, fields: FieldTypes, prefix: string): string | undefined {
  for (const [key, types] of Object.entries(fields)) {
    const value = record[key];
    if (value === undefined || value === null || types.includes(jsonType(value))) continue;
    const expected = types.map((type) => `${article(type)} ${type}`);
    return `${prefix}${key} must be ${expected.join(' or ')}, got ${preview(value)}`;
  }
  return undefined;
}

function jsonType(value: unknown): JsonType {
  if (Array.isArray(value)) return 'array';
  return typeof value as JsonType;
}

function article(type: JsonType): string {
  return type === 'array' || type === 'object' ? 'an' : 'a';
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
