/**
 * The proxy's part of OpenAI Responses: `/v1/responses`, the history a request keeps on the
 * provider (then it goes upstream as it came), and its output text deltas.
 */
import { fromResponsesInput, type ResponsesInputItem } from 'agent-compact/wire';
import type { ProxyWire } from '../proxy-wire.js';
import { responsesRecall } from './responses-recall.js';

/** Responses keeps a conversation on the provider: `previous_response_id`, `conversation`, item references. */
function statefulReason(body: Record<string, unknown>): string | undefined {
  if (typeof body.previous_response_id === 'string') return 'stateful: previous_response_id';
  if (body.conversation !== undefined && body.conversation !== null) return 'stateful: conversation';
  const input = Array.isArray(body.input) ? (body.input as { type?: unknown }[]) : [];
  if (input.some((item) => item?.type === 'item_reference')) return 'stateful: item_reference';
  return undefined;
}

export const responsesProxy: ProxyWire = {
  format: 'responses',
  route: { compacts: (path) => path.endsWith('/v1/responses') },
  checks: {
    statefulReason,
    // Responses input is checked in the canonical model it converts to.
    canonical: (items) => fromResponsesInput(items as ResponsesInputItem[]).messages,
    validation: () => ({ format: 'anthropic' }),
  },
  writeNote: (data, note) => {
    if (data.type !== 'response.output_text.delta' || typeof data.delta !== 'string') return false;
    data.delta = `${note}${data.delta}`;
    return true;
  },
  recall: responsesRecall,
  cacheWriteMultiplier: 1,
};
