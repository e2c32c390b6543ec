/**
 * Importer for OpenAI Responses traffic: a JSONL (or JSON array) of request bodies as an agent sent
 * them (`{ model, instructions, input, … }`, e.g. captured by a proxy), each line optionally
 * `{ "request": {…}, "response": {…} }` with the API's answer. Each request's `input` repeats the
 * conversation so far, so the conversation is the last request's input (plus its answer's output);
 * each answer's `usage` is the usage of the assistant turn it produced.
 */

import type { ResponsesInputItem } from '../../../core/conversation/responses-types.js';
import { fromResponsesInput } from '../../../core/wire/responses/responses-format.js';
import { finishImport } from '../../_finish.js';
import { isObject } from '../../_json.js';
import { atLogLine, notARequestLine, readExchanges, usageByTurn } from '../../_request-log.js';
import type { ImportedTranscript, ImportedUsage } from '../../imported-transcript.js';

type JsonRecord = Record<string, unknown>;

/** One exchange of the log: the request and, when recorded, the response. */
interface Exchange {
  request: JsonRecord;
  response?: JsonRecord;
}

/** True when a parsed line is a Responses request (or a request/response pair). */
export function isResponsesRequestLine(value: unknown): boolean {
  if (!isObject(value)) return false;
  const request = isObject(value.request) ? value.request : value;
  return (
    Object.hasOwn(request, 'input') && !Object.hasOwn(request, 'role') && !Object.hasOwn(request, 'messages')
  );
}

/**
 * Reads a log of Responses requests into the canonical model, with usage per assistant turn.
 *
 * @throws {CompactError} `UNREADABLE_INPUT` naming the line that is not a request.
 * @example
 * const transcript = responsesRequestsFromLines(lines, 'codex-traffic.jsonl');
 */
export function responsesRequestsFromLines(
  lines: ReadonlyArray<{ value: unknown; lineNumber: number }>,
  source?: string,
): ImportedTranscript {
  const { exchanges, last, lastLine } = readExchanges(lines, exchangeOf, 'Responses', source);
  const output = Array.isArray(last.response?.output) ? (last.response.output as ResponsesInputItem[]) : [];
  const input = itemsOf(last.request.input);
  const instructions = typeof last.request.instructions === 'string' ? last.request.instructions : undefined;
  const { messages, system } = atLogLine(
    () => fromResponsesInput([...input, ...output], { instructions }),
    lastLine,
    source,
  );
  const turns = messages.filter((message) => message.role === 'assistant').length;
  const usage = usageByTurn(exchanges, turns, (exchange) => ({
    usage: usageOf(exchange.response?.usage),
    answeredTurn: () =>
      fromResponsesInput(itemsOf(exchange.request.input)).messages.filter(
        (message) => message.role === 'assistant',
      ).length,
  }));
  return finishImport({ system, messages, usage, format: 'responses', source });
}

function exchangeOf(value: unknown, lineNumber: number, source: string | undefined): Exchange {
  if (!isResponsesRequestLine(value)) {
    throw notARequestLine('a Responses request ({ "input": … })', lineNumber, source);
  }
  const record = value as JsonRecord;
  if (!isObject(record.request)) return { request: record };
  return isObject(record.response)
    ? { request: record.request, response: record.response }
    : { request: record.request };
}

function itemsOf(input: unknown): ResponsesInputItem[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? (input as ResponsesInputItem[]) : [];
}

/** Responses usage as transcript usage: `input_tokens` is the whole prompt, cached tokens in details. */
function usageOf(usage: unknown): ImportedUsage | undefined {
  if (!isObject(usage) || typeof usage.input_tokens !== 'number') return undefined;
  const result: ImportedUsage = { input_tokens: usage.input_tokens };
  if (typeof usage.output_tokens === 'number') result.output_tokens = usage.output_tokens;
  const details = usage.input_tokens_details;
  if (isObject(details) && typeof details.cached_tokens === 'number') {
    result.prompt_tokens_details = { cached_tokens: details.cached_tokens };
  }
  return result;
}
