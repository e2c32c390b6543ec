/**
 * What the proxy checks differently per format around a compacted request: whether its history
 * lives on the provider, and how its outgoing conversation is validated. A new format is one line
 * below; the `Record` type makes the compiler name a format left out.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ResponsesInputItem, ValidateOptions, WireFormat } from 'agent-compact/wire';
import { allowsSystemMessages, fromResponsesInput } from 'agent-compact/wire';

/** One format's checks. */
export interface FormatChecks {
  /**
   * Why a request must go upstream as it came, if its history lives on the provider (an id or
   * item references the part it carries points at).
   */
  statefulReason?(body: Record<string, unknown>): string | undefined;
  /** The conversation in the model `validateMessages` checks it in, when that is not the one sent. */
  canonical?(items: unknown[]): unknown[];
  /** The `validateMessages` options for a request's conversation: its format, system prompt, betas. */
  validation(
    body: Record<string, unknown>,
    headers: IncomingHttpHeaders,
  ): Omit<ValidateOptions, 'relativeTo'>;
}

/** Responses keeps a conversation on the provider: `previous_response_id`, `conversation`, item references. */
function responsesStatefulReason(body: Record<string, unknown>): string | undefined {
  if (typeof body.previous_response_id === 'string') return 'stateful: previous_response_id';
  if (body.conversation !== undefined && body.conversation !== null) return 'stateful: conversation';
  const input = Array.isArray(body.input) ? (body.input as { type?: unknown }[]) : [];
  if (input.some((item) => item?.type === 'item_reference')) return 'stateful: item_reference';
  return undefined;
}

/** Every format's checks, by format. */
export const formatChecks: Readonly<Record<WireFormat, FormatChecks>> = {
  anthropic: {
    validation: (body, headers) => ({
      format: 'anthropic',
      ...(body.system !== undefined ? { system: body.system } : {}),
      ...(allowsSystemMessages(headers['anthropic-beta']) ? { systemMessages: true } : {}),
    }),
  },
  openai: { validation: () => ({ format: 'openai' }) },
  responses: {
    statefulReason: responsesStatefulReason,
    // Responses input is checked in the canonical model it converts to.
    canonical: (items) => fromResponsesInput(items as ResponsesInputItem[]).messages,
    validation: () => ({ format: 'anthropic' }),
  },
  gemini: { validation: () => ({ format: 'gemini' }) },
};
