/**
 * One request of a compacted API, start to end: the session's history, compaction, the check that
 * the result is still valid, the upstream call with the answer streamed back, and the usage that
 * anchors the session's next count. Any failure sends the client's original request instead.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { CompactionLayer, ProviderUsage } from 'agent-compact';
import { validateMessages } from 'agent-compact';
import { handleRecall } from 'agent-compact/recall';
import type { WireFormat } from 'agent-compact/wire';
import { asSentReason } from './as-sent.js';
import { openBranch } from './branch-compactor.js';
import type { ExchangeObservation } from './dashboard/monitor.js';
import { answerEndOf, type ForwardOutcome, forwardRequest } from './forward.js';
import { noticeText, prependNoteToStream, setCompactionHeaders } from './notify/compaction-notice.js';
import { errorSummary } from './provider-errors.js';
import type { ProxyRequestRecord } from './proxy-stats.js';
import { hasRecallTool, type RecallCall, withRecallTool } from './recall/recall-calls.js';
import { forwardWithRecall } from './recall/recall-forward.js';
import type { RequestCompaction, RequestCompactor } from './request-compactor.js';
import { conversationOf, withConversation } from './request-conversation.js';
import { loadBranch } from './session-branches.js';
import type { SessionCompactor, SessionCompactors } from './session-compactors.js';
import { nextState } from './session-history.js';
import { shortSessionId } from './session-identity.js';
import type { BodyRead } from './session-state.js';
import type { ProxySessionState, ProxySessionStore } from './session-store.js';
import { forwardWatchingErrors, streamErrorWatch, withStreamError } from './stream-error.js';
import type { UpstreamClient } from './upstream/upstream-client.js';
import { createUsageTap, type UsageTap } from './usage-tap.js';
import { proxyWires } from './wire/proxy-wires.js';

/** One request to handle. */
export interface Exchange {
  api: WireFormat;
  sessionKey: string;
  method: string;
  target: URL;
  headers: IncomingHttpHeaders;
  /** The client's request bytes, sent as they came when the body is not changed. */
  raw: Buffer;
  body: Record<string, unknown>;
  /** How `raw` was read into `body`: kept as the session's last request. */
  read: BodyRead;
  response: ServerResponse;
  signal: AbortSignal;
  arrived: number;
  /** Whether the model has the proxy's `recall` tool (the session compactors name ids only then). */
  recall: boolean;
  /** Put a one-line note in the streamed answer after a hard compaction. */
  notify?: boolean;
  /** The proxy's one HTTP client. */
  client: UpstreamClient;
}

/** What the exchange needs from the proxy. */
export interface ExchangeDependencies {
  store: ProxySessionStore;
  compactors: SessionCompactors;
  /** Answers 502 in the provider's shape when the upstream cannot be reached. */
  unreachable(response: ServerResponse, message: string): void;
  /** Told of every finished exchange (the dashboard). */
  observe?(observation: ExchangeObservation): void;
}

/** The status recorded when the client went away first (nginx's "client closed request"). */
const CLIENT_CLOSED_STATUS = 499;

/** What was decided before the upstream call. */
interface Outgoing {
  /** The body to send; serialized once, by `writeOutgoing`. */
  body: Record<string, unknown>;
  sent: unknown[];
  compaction?: RequestCompaction;
  fallback?: string;
}

/** Handles one compacted-API request; resolves with its record once the answer has ended. */
export async function runExchange(
  clientExchange: Exchange,
  dependencies: ExchangeDependencies,
): Promise<ProxyRequestRecord> {
  // Queued behind its session while the client went away: nothing is sent for it.
  if (clientExchange.signal.aborted) return closedRecord(clientExchange);
  const asSent = asSentReason(clientExchange.api, clientExchange.body);
  if (asSent !== undefined) return forwardAsSent(clientExchange, dependencies, asSent);
  const { store, compactors } = dependencies;
  compactors.reuseParsed(clientExchange.sessionKey, clientExchange.api, clientExchange.body);
  const exchange = clientExchange.recall ? withRecall(clientExchange) : clientExchange;
  // Only the tool the proxy declared is its to answer: a client's own `recall` (a memory server's)
  // keeps its calls.
  const recallDeclared = exchange.body !== clientExchange.body;
  // Nor may placeholders send the model to the client's tool with the proxy's archive ids.
  const ownRecall = clientExchange.recall && hasRecallTool(clientExchange.body);
  const { api, body } = exchange;
  const client = conversationOf(api, body) ?? [];
  const loaded = await loadBranch(store, exchange.sessionKey, api, client).catch((error: unknown) => ({
    failed: `session store failed: ${errorSummary(error)}`,
  }));
  // Without the session's history nothing can be appended to it: the client's bytes go.
  if ('failed' in loaded) return forwardAsSent(clientExchange, dependencies, { fallback: loaded.failed });
  // The branch's own state, compactor and archive; records keep the client's session id.
  const { branch, lineage, session } = await openBranch(compactors, loaded, client, {
    read: clientExchange.read,
    recall: clientExchange.recall && !ownRecall,
  });
  const { key: sessionKey, state, input } = branch;
  const { outgoing, payload } = writeOutgoing(
    clientExchange,
    await compactOnce(exchange, session, input.conversation, {
      usage: input.restarted ? undefined : state?.usage,
      pickedUp: state === undefined || (input.restarted && state.sent !== undefined),
    }),
  );
  const notes = compactors.takeNotes(sessionKey);
  compactors.noteOutcome(sessionKey, {
    layer: outgoing.compaction?.layer ?? 'none',
    fallback: outgoing.fallback,
  });
  if (outgoing.fallback) compactors.drop(sessionKey);
  // The client left while the proxy compacted (a summary call, say): the request is not sent.
  if (exchange.signal.aborted) return closedRecord(exchange, outgoing);
  const figures = figuresOf(compactors, clientExchange, outgoing);
  const overheadMs = performance.now() - exchange.arrived;
  announceCompaction(exchange, outgoing, figures);
  // A body the proxy could not write goes as the client's bytes, without the recall tool.
  const recallSent = recallDeclared && outgoing.body !== clientExchange.body;
  const { outcome, usage } = await sendUpstream(
    exchange,
    { body: outgoing.body, payload },
    session,
    recallSent,
  );
  if (outcome.type === 'unreachable') dependencies.unreachable(exchange.response, outcome.message);
  if (outcome.type === 'answered' && outcome.status >= 200 && outcome.status < 300) {
    compactors.verify(sessionKey);
  }
  let stateNotSaved: string | undefined;
  if (outcome.type !== 'closed') {
    const recalled = outcome.type === 'answered' ? outcome.recalled : undefined;
    const next = nextState(input.fingerprints, client, outgoing.sent, recalled);
    // A compaction that fell back may have archived; no later request may reach that archive.
    const kept = { ...next, ...branch.carried, lineage: outgoing.fallback ? randomUUID() : lineage };
    stateNotSaved = await saveAfterAnswer(dependencies, sessionKey, usage ? { ...kept, usage } : kept);
  }
  const record: ProxyRequestRecord = {
    ...recordOf(exchange, outgoing, outcome),
    ...figures,
    overheadMs,
    ...(branch.restarted ? { restarted: true } : {}),
    ...notes,
    ...(stateNotSaved ? { stateNotSaved } : {}),
  };
  dependencies.observe?.(observationOf(exchange, record, outgoing, session, usage));
  return record;
}

/**
 * Saves the session's state once the answer went out. A store that fails then cannot take the
 * answer back: the failure goes on the request's record (returned), the record is kept, and the
 * session's compactor is dropped so the next request starts from what the store holds.
 */
async function saveAfterAnswer(
  { store, compactors }: ExchangeDependencies,
  sessionKey: string,
  state: ProxySessionState,
): Promise<string | undefined> {
  try {
    await store.save(sessionKey, state);
    return undefined;
  } catch (error) {
    compactors.drop(sessionKey);
    return `session store failed: ${errorSummary(error)}`;
  }
}

/** What the dashboard and the logs hear of one finished exchange. */
function observationOf(
  exchange: Exchange,
  record: ProxyRequestRecord,
  outgoing: Outgoing,
  session: SessionCompactor,
  usage: ProviderUsage | undefined,
): ExchangeObservation {
  return {
    record,
    model: typeof exchange.body.model === 'string' ? exchange.body.model : undefined,
    agent: exchange.headers['user-agent'],
    usage,
    compaction: outgoing.compaction,
    archive: session.compactor.archive,
    archiveSessionId: session.compactor.sessionId,
  };
}

/**
 * The record's token figures: what the client sent (its whole history, as it came) and what went
 * upstream, counted the same way. The compaction's own `tokensBefore` counts its input, which after
 * a compaction is the proxy's compacted history plus the client's new messages.
 */
function figuresOf(
  compactors: SessionCompactors,
  client: Exchange,
  outgoing: Outgoing,
): Pick<ProxyRequestRecord, 'tokensIn' | 'tokensOut'> {
  const tokensIn = compactors.tokensOf(client.api, client.body);
  if (tokensIn === undefined) return { tokensIn: 0, tokensOut: 0 };
  const tokensOut = outgoing.body === client.body ? tokensIn : compactors.tokensOf(client.api, outgoing.body);
  return { tokensIn, tokensOut: tokensOut ?? tokensIn };
}

/**
 * Tells the agent's user what the proxy did: the x-agent-compact-* headers, and `--notify`'s note,
 * with the record's figures (the client's request and what goes upstream).
 */
function announceCompaction(
  exchange: Exchange,
  outgoing: Outgoing,
  { tokensIn, tokensOut }: Pick<ProxyRequestRecord, 'tokensIn' | 'tokensOut'>,
) {
  const figures = {
    layer: outgoing.compaction?.layer ?? 'none',
    tokensBefore: tokensIn,
    tokensAfter: tokensOut,
    session: shortSessionId(exchange.sessionKey),
  } as const;
  setCompactionHeaders(exchange.response, figures);
  if (exchange.notify && figures.layer === 'hard' && !outgoing.fallback) {
    prependNoteToStream(exchange.response, exchange.api, noticeText(figures));
  }
}

/** Sends the outgoing body (through the recall loop when the model has the tool) and reads its usage. */
async function sendUpstream(
  exchange: Exchange,
  outgoing: { body: Record<string, unknown>; payload: Buffer },
  session: ReturnType<SessionCompactors['get']>,
  recallDeclared: boolean,
): Promise<{ outcome: ForwardOutcome; usage: ProviderUsage | undefined }> {
  const { api, response } = exchange;
  if (recallDeclared) {
    const outcome = await forwardWithRecall({
      client: exchange.client,
      api,
      url: exchange.target,
      headers: exchange.headers,
      body: outgoing.body,
      payload: outgoing.payload,
      response,
      signal: exchange.signal,
      recall: (call) => recallText(session.compactor, call),
    });
    return { outcome, usage: outcome.type === 'answered' && outcome.complete ? outcome.usage : undefined };
  }
  let tap: UsageTap | undefined;
  const errors = streamErrorWatch();
  const outcome = await forwardRequest(
    {
      client: exchange.client,
      url: exchange.target,
      method: exchange.method,
      headers: { ...exchange.headers, 'accept-encoding': 'identity' },
      body: outgoing.payload,
      signal: exchange.signal,
    },
    response,
    {
      head: (status, answerHeaders) => {
        const encoding = answerHeaders['content-encoding'];
        if (status === 200 && (encoding === undefined || encoding === 'identity')) {
          const streamed = String(answerHeaders['content-type']).includes('text/event-stream');
          tap = createUsageTap(api, streamed, errors.onEvent);
        }
      },
      chunk: (chunk) => tap?.write(chunk),
    },
  );
  const usage = outcome.type === 'answered' && outcome.complete ? tap?.finish() : undefined;
  return { outcome: withStreamError(outcome, errors.error), usage };
}

/** The record of an exchange that went upstream (or could not). */
function recordOf(exchange: Exchange, outgoing: Outgoing, outcome: ForwardOutcome): ProxyRequestRecord {
  const compaction = outgoing.compaction;
  const layer: CompactionLayer = compaction?.layer ?? 'none';
  const closed = outcome.type === 'closed' || exchange.signal.aborted;
  return {
    time: new Date(Date.now() - (performance.now() - exchange.arrived)).toISOString(),
    session: shortSessionId(exchange.sessionKey),
    api: exchange.api,
    method: exchange.method,
    path: exchange.target.pathname,
    tokensIn: compaction?.tokensBefore ?? 0,
    tokensOut: compaction?.tokensAfter ?? 0,
    layer,
    status: outcome.type === 'answered' ? outcome.status : closed ? CLIENT_CLOSED_STATUS : 502,
    ms: performance.now() - exchange.arrived,
    overheadMs: 0,
    ...(outgoing.fallback ? { fallback: outgoing.fallback } : {}),
    ...(closed ? { clientClosed: true } : {}),
    ...answerEndOf(outcome, closed),
  };
}

/** The record of an exchange whose client left before anything (more) went upstream. */
function closedRecord(exchange: Exchange, outgoing?: Outgoing): ProxyRequestRecord {
  return recordOf(exchange, outgoing ?? { body: exchange.body, sent: [] }, { type: 'closed' });
}

/**
 * Forwards the client's bytes untouched, recorded with why: a stateful request (`passthrough`), or
 * one the proxy does not compact (`fallback`: its session state could not be read, a field of the
 * wrong JSON type).
 */
async function forwardAsSent(
  exchange: Exchange,
  dependencies: ExchangeDependencies,
  why: Pick<ProxyRequestRecord, 'passthrough'> | Pick<ProxyRequestRecord, 'fallback'>,
): Promise<ProxyRequestRecord> {
  const outcome = await forwardWatchingErrors(
    {
      client: exchange.client,
      url: exchange.target,
      method: exchange.method,
      headers: exchange.headers,
      body: exchange.raw,
      signal: exchange.signal,
    },
    exchange.response,
  );
  if (outcome.type === 'unreachable') dependencies.unreachable(exchange.response, outcome.message);
  const record = recordOf(exchange, { body: exchange.body, sent: [] }, outcome);
  return { ...record, overheadMs: 0, ...why };
}

/**
 * Compacts the request; the client's own bytes when nothing changed or anything went wrong. On a
 * model that binds its thinking to the history before it, the client's copy of a history the
 * proxy compacted holds thinking written after the proxy's version: what goes back then is the
 * proxy's history with the client's new messages, and a history the proxy picks up without knowing
 * what it sent (`pickedUp`: a new session, or one started over after a compaction) goes without
 * its thinking, compacted or not.
 */
async function compactOnce(
  exchange: Exchange,
  session: ReturnType<SessionCompactors['get']>,
  conversation: unknown[],
  { usage, pickedUp }: { usage: ProviderUsage | undefined; pickedUp: boolean },
): Promise<Outgoing> {
  const { api, body } = exchange;
  const client = conversationOf(api, body) ?? [];
  const inputBody = conversation === client ? body : withConversation(api, body, conversation);
  const checks = proxyWires[api].checks;
  const bindsThinking = checks.bindsThinking?.(body) === true;
  // Built only when the compaction fails: a picked-up history is read once more to unbind it.
  const fallback = (): Outgoing =>
    bindsThinking
      ? unboundFallback(api, inputBody, conversation, pickedUp ? checks.withoutThinking : undefined)
      : { body, sent: client };
  // The check of the result is relative to what the client sent (`firstProblem`), so a problem the
  // client's request holds never throws a summary away: no guard is needed here.
  const summarizer = session.summarizerFor({ api, url: exchange.target, headers: exchange.headers, body });
  let compaction: RequestCompaction;
  try {
    compaction = await session.compactor.compactRequest(inputBody, {
      format: api,
      ...(bindsThinking && pickedUp ? { resetThinking: true } : {}),
      ...(summarizer ? { summarizer } : {}),
      ...(usage ? { usage } : {}),
      signal: exchange.signal,
    });
  } catch (error) {
    return { ...fallback(), fallback: `compaction failed: ${errorSummary(error)}` };
  }
  // Unchanged: the compaction ran on the client's own body.
  if (compaction.body === body) return { body, sent: client, compaction };
  const sent = conversationOf(api, compaction.body);
  const problem =
    sent === undefined
      ? 'the compacted request has no conversation'
      : firstProblem(api, compaction.body, { sent, input: conversation }, exchange.headers);
  if (problem !== undefined || sent === undefined) {
    return {
      ...fallback(),
      // What went upstream is the client's request: no layer ran on it.
      compaction: { ...compaction, layer: 'none', tokensAfter: compaction.tokensBefore },
      fallback: `compacted request rejected (${compaction.layer}): ${problem}`,
    };
  }
  return { body: compaction.body, sent, compaction };
}

/**
 * What goes upstream when a compaction for a model that binds its thinking fails: the proxy's own
 * history, without its thinking when the proxy does not know what prefix it was written on.
 */
function unboundFallback(
  api: WireFormat,
  body: Record<string, unknown>,
  conversation: unknown[],
  withoutThinking: ((items: unknown[]) => unknown[]) | undefined,
): Outgoing {
  const sent = withoutThinking?.(conversation) ?? conversation;
  return { body: sent === conversation ? body : withConversation(api, body, sent), sent };
}

/**
 * The bytes to send: the client's own when the body is the client's, else one serialization of the
 * body (the core's output as it is, or the client's with the `recall` tool; the recall path sends
 * them as its first round). A body `JSON.stringify` cannot write (a value nested deeper than its
 * stack, which `JSON.parse` read) goes as the client sent it, without the recall tool, as a
 * fallback that says why; before, the exception escaped the exchange as a 502.
 */
function writeOutgoing(client: Exchange, outgoing: Outgoing): { outgoing: Outgoing; payload: Buffer } {
  if (outgoing.body === client.body) return { outgoing, payload: client.raw };
  try {
    return { outgoing, payload: Buffer.from(JSON.stringify(outgoing.body)) };
  } catch (error) {
    const { compaction } = outgoing;
    return {
      outgoing: {
        body: client.body,
        sent: conversationOf(client.api, client.body) ?? [],
        // What went upstream is the client's request: no layer ran on it.
        ...(compaction
          ? { compaction: { ...compaction, layer: 'none', tokensAfter: compaction.tokensBefore } }
          : {}),
        fallback: outgoing.fallback ?? `request could not be written as JSON: ${errorSummary(error)}`,
      },
      payload: client.raw,
    };
  }
}

/**
 * The first provider rule the outgoing conversation breaks that the conversation handed to the
 * compactor did not already break: a shape the client sent (a `role: "system"` message under a beta
 * this proxy does not know, a block type) is one its provider takes, so only what the compaction
 * itself made invalid sends the client's bytes instead. Anthropic system messages also pass outright
 * under a beta known to allow them (`allowsSystemMessages`).
 */
export function firstProblem(
  api: WireFormat,
  body: Record<string, unknown>,
  { sent, input }: { sent: unknown[]; input: unknown[] },
  headers: IncomingHttpHeaders,
): string | undefined {
  const checks = proxyWires[api].checks;
  const canonical = (items: unknown[]) => checks.canonical?.(items) ?? items;
  let before: unknown;
  try {
    before = canonical(input);
  } catch {
    // An input the conversion cannot read excuses nothing: the output is checked on its own.
    before = undefined;
  }
  const [problem] = validateMessages(canonical(sent), {
    ...checks.validation(body, headers),
    ...(before === undefined ? {} : { relativeTo: before }),
  });
  return problem ? `${problem.path}: ${problem.message}` : undefined;
}

/** The exchange with the `recall` tool added to its request (when it has tools of its own). */
function withRecall(exchange: Exchange): Exchange {
  const body = withRecallTool(exchange.api, exchange.body);
  return body === exchange.body ? exchange : { ...exchange, body };
}

/** The archived original for a recall call, or a short error the model can read. */
async function recallText(compactor: RequestCompactor, call: RecallCall): Promise<string> {
  try {
    const recalled = await handleRecall(
      { archive: compactor.archive, sessionId: compactor.sessionId },
      call.input,
    );
    // Every API takes a text result; a result of blocks (an image, say) is written as text.
    return typeof recalled === 'string'
      ? recalled
      : recalled.map((block) => (block.type === 'text' ? block.text : JSON.stringify(block))).join('\n');
  } catch (error) {
    return `recall failed: ${errorSummary(error)}`;
  }
}
