import { fromGeminiContents } from '../../../core/wire/gemini/gemini-format.js';
import type { GeminiContent, GeminiPart } from '../../../core/wire/gemini/gemini-types.js';
import { finishImport } from '../../_finish.js';
import { isObject } from '../../_json.js';
import { atLogLine, notARequestLine, readExchanges, usageByTurn } from '../../_request-log.js';
import type { ImportedTranscript, ImportedUsage } from '../../imported-transcript.js';

type JsonRecord = Record<string, unknown>;

/** One exchange of the log: the request and, when recorded, the response (or its stream chunks). */
interface Exchange {
  request: JsonRecord;
  responses: JsonRecord[];
}

/** True when a parsed line is a `generateContent` request (or a request/response pair). */
export function isGeminiRequestLine(value: unknown): boolean {
  if (!isObject(value)) return false;
  const request = isObject(value.request) ? value.request : value;
  return (
    Array.isArray(request.contents) &&
    !Object.hasOwn(request, 'role') &&
    !Object.hasOwn(request, 'messages') &&
    !Object.hasOwn(request, 'input')
  );
}

/**
 * Reads a log of Gemini `generateContent` requests into the canonical model, with usage per
 * assistant turn.
 *
 * @throws {CompactError} `UNREADABLE_INPUT` naming the line that is not a request.
 * @example
 * const transcript = geminiRequestsFromLines(lines, 'gemini-traffic.jsonl');
 */
export function geminiRequestsFromLines(
  lines: ReadonlyArray<{ value: unknown; lineNumber: number }>,
  source?: string,
): ImportedTranscript {
  const { exchanges, last, lastLine } = readExchanges(lines, exchangeOf, 'Gemini', source);
  const answer = answerOf(last.responses);
  const contents = [...(last.request.contents as GeminiContent[]), ...(answer ? [answer] : [])];
  const { messages, system } = atLogLine(
    () => fromGeminiContents(contents, { systemInstruction: last.request.systemInstruction }),
    lastLine,
    source,
  );
  const turns = messages.filter((message) => message.role === 'assistant').length;
  const usage = usageByTurn(exchanges, turns, (exchange) => ({
    usage: usageOf(exchange.responses),
    answeredTurn: () =>
      (exchange.request.contents as GeminiContent[]).filter((content) => content.role === 'model').length,
  }));
  return finishImport({ system, messages, usage, format: 'gemini', source });
}

function exchangeOf(value: unknown, lineNumber: number, source: string | undefined): Exchange {
  if (!isGeminiRequestLine(value)) {
    throw notARequestLine('a Gemini request ({ "contents": [...] })', lineNumber, source);
  }
  const record = value as JsonRecord;
  if (!isObject(record.request)) return { request: record, responses: [] };
  const { response } = record;
  const responses = (Array.isArray(response) ? response : [response]).filter(isObject);
  return { request: record.request, responses };
}

/** The model's content of an answer: the first candidate's parts, across stream chunks. */
function answerOf(responses: readonly JsonRecord[]): GeminiContent | undefined {
  const parts: GeminiPart[] = [];
  for (const response of responses) {
    const [candidate] = Array.isArray(response.candidates) ? response.candidates : [];
    const content = isObject(candidate) ? candidate.content : undefined;
    if (isObject(content) && Array.isArray(content.parts)) parts.push(...(content.parts as GeminiPart[]));
  }
  return parts.length > 0 ? { role: 'model', parts } : undefined;
}

/** `usageMetadata` (a stream's last report) as transcript usage: the whole prompt, cached tokens in details. */
function usageOf(responses: readonly JsonRecord[]): ImportedUsage | undefined {
  const metadata = responses
    .map((response) => response.usageMetadata)
    .filter(isObject)
    .at(-1);
  if (!metadata || typeof metadata.promptTokenCount !== 'number') return undefined;
  const result: ImportedUsage = { prompt_tokens: metadata.promptTokenCount };
  if (typeof metadata.candidatesTokenCount === 'number')
    result.completion_tokens = metadata.candidatesTokenCount;
  if (typeof metadata.cachedContentTokenCount === 'number') {
    result.prompt_tokens_details = { cached_tokens: metadata.cachedContentTokenCount };
  }
  return result;
}
