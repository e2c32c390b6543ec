/**
 * Forwarding with `--recall`: the answer is read on its way to the client; when the model calls
 * `recall`, the proxy answers from the archive and asks again (a follow-up upstream request), so
 * the client never sees a tool it does not know. Streams are passed through until a recall call
 * begins; the follow-up's events then continue the same stream, renumbered. A turn that calls the
 * client's own tools as well goes to the client whole without its recall calls, plain or streamed.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { ProviderUsage } from 'agent-compact';
import { dialects } from 'agent-compact/internal';
import type { WireFormat } from 'agent-compact/wire';
import { drained, type ForwardOutcome, upstreamHeaders } from '../forward.js';
import { conversationOf } from '../request-conversation.js';
import { streamErrorWatch, withStreamError } from '../stream-error.js';
import type { UpstreamAnswer, UpstreamClient } from '../upstream/upstream-client.js';
import { createUsageTap } from '../usage-tap.js';
import { proxyWires } from '../wire/proxy-wires.js';
import { followUpBody, type RecallCall, toolCallsOf, withoutRecallCalls } from './recall-calls.js';
import { type SseEvent, sseEvents } from './sse-events.js';

/**
 * Recall rounds answered for one request. The last follow-up asks for an answer without tool calls
 * (tool choice `none`), so the client gets the model's text rather than a turn emptied of calls.
 */
export const MAX_RECALL_ROUNDS = 3;

/** What {@link forwardWithRecall} needs. */
export interface RecallForward {
  /** The proxy's one HTTP client. */
  client: UpstreamClient;
  api: WireFormat;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** `body` as bytes, sent as the first round (it is serialized once, by the caller). */
  payload?: Buffer;
  response: ServerResponse;
  signal: AbortSignal;
  /** Answers one recall call: the archived text, or an error text for the model. */
  recall(call: RecallCall): Promise<string>;
}

/** Blocks (or output items) already sent to the client, so follow-up events continue the numbering. */
interface Sent {
  opened: number;
}

/** Forwards the request, answering recall calls; resolves like `forwardRequest`. */
export async function forwardWithRecall(forward: RecallForward): Promise<ForwardOutcome> {
  const streamed = proxyWires[forward.api].recall.isStreamed(forward.url, forward.body);
  const sent: Sent = { opened: 0 };
  let body = forward.body;
  for (let round = 0; ; round += 1) {
    // Each round is a billed call: none once the client has gone.
    if (forward.signal.aborted) {
      if (round > 0) forward.response.destroy();
      return { type: 'closed' };
    }
    let answer: UpstreamAnswer;
    try {
      answer = await forward.client.send({
        url: forward.url,
        method: 'POST',
        headers: requestHeaders(forward.headers),
        body: round === 0 && forward.payload ? forward.payload : JSON.stringify(body),
        signal: forward.signal,
      });
    } catch (error) {
      if (forward.signal.aborted) return { type: 'closed' };
      if (round === 0)
        return { type: 'unreachable', message: error instanceof Error ? error.message : String(error) };
      forward.response.destroy();
      return { type: 'answered', status: 502, complete: false };
    }
    const lastRound = round === MAX_RECALL_ROUNDS;
    const next =
      streamed && isOk(answer)
        ? await relayStream(forward, answer, round, sent, lastRound)
        : await relayJson(forward, answer, lastRound);
    if (next.type === 'done') {
      // Only an answer to the request the session sent anchors its count, not a follow-up's.
      const usage = round === 0 ? next.usage : undefined;
      const recalled = round > 0 && next.answer ? answeredRounds(forward, body, next.answer) : undefined;
      const outcome: ForwardOutcome = {
        type: 'answered',
        status: answer.status,
        complete: next.complete,
        ...(usage ? { usage } : {}),
        ...(recalled ? { recalled } : {}),
      };
      return withStreamError(outcome, next.streamError);
    }
    const results = await Promise.all(
      next.calls.map(async (call) => ({ id: call.id, output: await forward.recall(call) })),
    );
    body = followUpBody(forward.api, body, next.answer, results, round + 1 === MAX_RECALL_ROUNDS);
  }
}

/**
 * What the model's history holds after the request, past the conversation the client sent: the
 * recall rounds the client never saw, then the last answer as the client got it (its recall calls
 * out). The client's copy joins every round's answer into one turn, which a model that binds its
 * thinking to the history before it (or a Responses reasoning item, to the item after it) refuses.
 */
function answeredRounds(
  forward: RecallForward,
  lastBody: Record<string, unknown>,
  answer: Record<string, unknown>,
): unknown[] {
  const { api } = forward;
  const rounds = (conversationOf(api, lastBody) ?? []).slice(
    (conversationOf(api, forward.body) ?? []).length,
  );
  const shown = toolCallsOf(api, answer).recall.length > 0 ? withoutRecallCalls(api, answer) : answer;
  return [...rounds, ...proxyWires[api].recall.answerItems(shown, forward.body)];
}

type RoundResult =
  | {
      type: 'done';
      complete: boolean;
      usage?: ProviderUsage;
      answer?: Record<string, unknown>;
      /** The error the round's stream carried after its 2xx (`stream-error.ts`). */
      streamError?: string;
    }
  | { type: 'recall'; calls: RecallCall[]; answer: Record<string, unknown> };

async function relayJson(
  forward: RecallForward,
  answer: UpstreamAnswer,
  lastRound: boolean,
): Promise<RoundResult> {
  let text: string;
  try {
    text = await answer.body.text();
  } catch {
    // The answer broke off upstream: nothing of it went to the client yet, which gets it broken too.
    forward.response.destroy();
    return { type: 'done', complete: false };
  }
  const parsed = isOk(answer) ? parseObject(text) : undefined;
  const calls = parsed ? toolCallsOf(forward.api, parsed) : { recall: [], others: 0 };
  if (parsed && calls.recall.length > 0 && calls.others === 0 && !lastRound) {
    return { type: 'recall', calls: calls.recall, answer: parsed };
  }
  const out =
    parsed && calls.recall.length > 0 ? JSON.stringify(withoutRecallCalls(forward.api, parsed)) : text;
  if (!forward.response.headersSent) forward.response.writeHead(answer.status, responseHeaders(answer));
  forward.response.end(out);
  const usage = dialects[forward.api].usageOf(parsed);
  return { type: 'done', complete: true, ...(usage ? { usage } : {}), ...(parsed ? { answer: parsed } : {}) };
}

async function relayStream(
  forward: RecallForward,
  answer: UpstreamAnswer,
  round: number,
  sent: Sent,
  lastRound: boolean,
): Promise<RoundResult> {
  const { response, api } = forward;
  const wire = proxyWires[api].recall;
  if (!response.headersSent) response.writeHead(answer.status, responseHeaders(answer));
  const assembler = wire.createAssembler();
  const errors = streamErrorWatch();
  const usageTap = createUsageTap(api, true, errors.onEvent);
  const offset = sent.opened;
  const pass = (event: SseEvent) => {
    // A follow-up round's event: without what opens an answer, indexes past what was sent.
    const { data } = event;
    const text = round === 0 || !data ? event.raw : wire.continuedEvent({ ...event, data }, offset);
    if (text === undefined) return;
    response.write(text);
    if (wire.opensIndex(event)) sent.opened += 1;
  };
  const held: SseEvent[] = [];
  try {
    for await (const event of sseEvents(answer.body)) {
      assembler.add(event);
      usageTap.write(Buffer.from(event.raw));
      if (held.length === 0 && !assembler.recallStarted) pass(event);
      else held.push(event);
      // A slow client holds the upstream back here too.
      if (response.writableNeedDrain) await drained(response);
    }
  } catch {
    response.destroy();
    return { type: 'done', complete: false, streamError: errors.error };
  }
  const full = held.length === 0 ? undefined : assembler.answer();
  const calls = full ? toolCallsOf(api, full) : undefined;
  // An answer its stream broke with an error is no call to answer: the client gets the error.
  if (full && calls && calls.others === 0 && !lastRound && errors.error === undefined) {
    return { type: 'recall', calls: calls.recall, answer: full };
  }
  // No recall, or recall mixed with the client's own calls: the client gets every call of its own
  // (as the plain answer does), the recall calls taken out; the model's recall goes unanswered.
  for (const event of wire.withoutRecallEvents(held)) pass(event);
  response.end();
  const usage = usageTap.finish();
  const assembled = full ?? assembler.answer();
  return {
    type: 'done',
    complete: true,
    ...(usage ? { usage } : {}),
    answer: assembled,
    streamError: errors.error,
  };
}

/** Headers that belong to this hop or describe a body the proxy may have changed. */
const droppedResponseHeaders = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
]);

function responseHeaders(answer: UpstreamAnswer): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined && !droppedResponseHeaders.has(name)) headers[name] = value;
  }
  return headers;
}

function isOk(answer: UpstreamAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

function requestHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(upstreamHeaders(headers, undefined))) {
    if (value === undefined || name === 'content-length') continue;
    result[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  result['accept-encoding'] = 'identity';
  return result;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
