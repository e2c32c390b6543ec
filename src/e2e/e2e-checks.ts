/** What every end-to-end run must show, as named checks with the figures behind them. */

import { estimateRequestTokens, type RecordedRequest } from '@agent-compact/testing';
import { dialects, workingSetOpen } from 'agent-compact/internal';
import type { WireFormat } from 'agent-compact/wire';
import type { ProxyRequestRecord, ProxyStats } from '../proxy/index.js';
import { createRequestTokens } from '../proxy/request-tokens.js';
import { fingerprintMessage } from '../proxy/session-identity.js';
import type { HopRequest } from './http-hop.js';

/** One check's outcome. */
export interface E2ECheck {
  name: string;
  passed: boolean;
  detail: string;
}

/** The request bodies of one agent conversation, from the client side and the server side. */
export interface E2ETraffic {
  api: WireFormat;
  exitCode: number | null;
  /** What the agent sent to the proxy (its main conversation only). */
  client: HopRequest[];
  /** What the model server received for that conversation and answered (summaries excluded). */
  server: RecordedRequest[];
  /** Every request the model server received. */
  allServer: RecordedRequest[];
  /** The conversation's requests the server failed (a scripted 429), sent again by the agent. */
  refused?: RecordedRequest[];
  /** The proxy's records of the main conversation answered whole, in order: `records[i]` is `server[i]`'s. */
  records: ProxyRequestRecord[];
  /** How the proxy read the request bodies of 16 KiB or more (its stats); none without the proxy. */
  bodies?: ProxyStats['bodies'];
}

const invalidOutcomes = new Set([
  'invalid-request',
  'prompt-too-long',
  'not-found',
  'unauthorized',
  'script-exhausted',
]);

/** The checks of the issue: exit 0, every request valid, compaction fired, prefix stable. */
export function checkTraffic(traffic: E2ETraffic): E2ECheck[] {
  const conversationOf = (body: Record<string, unknown> | undefined) => conversation(traffic.api, body);
  const apiRequests = modelCalls(traffic);
  const invalid = apiRequests.filter((request) => invalidOutcomes.has(request.outcome));
  const tokens = (body: Record<string, unknown> | undefined) => bodyTokens(traffic.api, body ?? {});
  const clientMax = Math.max(0, ...traffic.client.map((request) => tokens(request.body)));
  const serverMax = Math.max(0, ...traffic.server.map((request) => tokens(request.body)));
  const compacted = traffic.records.filter((record) => record.layer !== 'none');
  let stablePairs = 0;
  const unstable: number[] = [];
  for (let index = 1; index < traffic.server.length; index += 1) {
    if (traffic.records[index]?.layer !== 'none') continue;
    const before = conversationOf(sentBefore(traffic, index)?.body);
    if (sharedPrefix(before, conversationOf(traffic.server[index]?.body)) === before.length) stablePairs += 1;
    else unstable.push(index);
  }
  return [
    { name: 'agent exited 0', passed: traffic.exitCode === 0, detail: `exit code ${traffic.exitCode}` },
    {
      name: 'every request the server received is valid',
      passed: invalid.length === 0 && apiRequests.length > 0,
      detail: `${apiRequests.length} requests, ${invalid.length} rejected${invalid.length ? ` (${invalid.map((request) => request.outcome).join(', ')})` : ''}`,
    },
    {
      name: 'compaction fired (the server saw fewer tokens than the client sent)',
      passed: compacted.length > 0 && serverMax < clientMax,
      detail: `layers ${traffic.records.map((record) => `${record.layer} ${record.tokensIn}→${record.tokensOut}${record.restarted ? ' (restarted)' : ''}`).join(', ')}; client up to ${clientMax} tokens, server up to ${serverMax}`,
    },
    {
      name: 'the upstream prefix is byte-stable between compactions',
      passed: unstable.length === 0 && stablePairs > 0,
      detail: `${stablePairs} consecutive requests extended the previous one${unstable.length ? `; not at ${unstable.join(', ')}` : ''}`,
    },
  ];
}

/**
 * What went upstream just before the `index`-th answered request: the answered one before it, or
 * an attempt the server refused between them (its retry carries the compaction made for it).
 */
function sentBefore(traffic: E2ETraffic, index: number): RecordedRequest | undefined {
  const previous = traffic.server[index - 1];
  const current = traffic.server[index];
  if (previous === undefined || current === undefined) return previous;
  const between = (traffic.refused ?? []).filter(
    (request) => request.index > previous.index && request.index < current.index,
  );
  return between.at(-1) ?? previous;
}

/** Most prefix rewrites a run may make (the issue's bound for the Gemini CLI run). */
const MAX_PREFIX_REWRITES = 4;
/** The largest request through the proxy, as a share of the largest in the same run without it. */
const MAX_PEAK_RATIO = 0.85;

/**
 * The checks against the same run without the proxy: the largest request the server saw is at
 * most 85% of the baseline's, and at most 4 requests rewrote the prefix the one before sent
 * (each throws away the prompt cache from that point).
 */
export function checkAgainstBaseline(traffic: E2ETraffic, baseline: E2ETraffic): E2ECheck[] {
  return [checkPeak(traffic, baseline), checkPrefixRewrites(traffic)];
}

/** The largest request the server saw is at most 85% of the largest in the run without the proxy. */
export function checkPeak(traffic: E2ETraffic, baseline: E2ETraffic): E2ECheck {
  const peak = (run: E2ETraffic) =>
    Math.max(0, ...run.server.map((request) => bodyTokens(run.api, request.body)));
  const proxied = peak(traffic);
  const direct = peak(baseline);
  return {
    name: `the largest request is at most ${MAX_PEAK_RATIO * 100}% of the run without the proxy`,
    passed: baseline.exitCode === 0 && direct > 0 && proxied <= direct * MAX_PEAK_RATIO,
    detail: `${proxied} tokens through the proxy, ${direct} without (${direct > 0 ? ((100 * proxied) / direct).toFixed(1) : '?'}%; baseline exit ${baseline.exitCode})`,
  };
}

/** At most 4 requests rewrote the prefix the one before sent (each throws the prompt cache away from there). */
export function checkPrefixRewrites(traffic: E2ETraffic): E2ECheck {
  const rewrites: number[] = [];
  for (let index = 1; index < traffic.server.length; index += 1) {
    const before = conversation(traffic.api, traffic.server[index - 1]?.body);
    if (sharedPrefix(before, conversation(traffic.api, traffic.server[index]?.body)) < before.length)
      rewrites.push(index);
  }
  return {
    name: `at most ${MAX_PREFIX_REWRITES} prefix rewrites`,
    passed: rewrites.length <= MAX_PREFIX_REWRITES && traffic.server.length > 1,
    detail: `${rewrites.length} of ${traffic.server.length - 1} requests${rewrites.length ? ` (at ${rewrites.join(', ')})` : ''}`,
  };
}

/** The model API calls the server received (a client's HEAD / connectivity probe is not one). */
function modelCalls(traffic: E2ETraffic): RecordedRequest[] {
  return traffic.allServer.filter(
    (request) =>
      request.method === 'POST' && (request.path.startsWith('/v1/') || request.path.startsWith('/v1beta/')),
  );
}

/**
 * How many messages `after` opens with that are `before`'s, as the prompt cache sees them (cache
 * breakpoints aside, one text block as a string).
 */
function sharedPrefix(before: readonly unknown[], after: readonly unknown[]): number {
  let shared = 0;
  while (
    shared < before.length &&
    shared < after.length &&
    fingerprintMessage(before[shared]) === fingerprintMessage(after[shared])
  )
    shared++;
  return shared;
}

/** The conversation array of a request body in the run's API. */
function conversation(api: E2ETraffic['api'], body: Record<string, unknown> | undefined): unknown[] {
  const field = body?.[dialects[api].conversationField];
  return Array.isArray(field) ? field : [];
}

/** Tokens of a request body by the scripted server's deterministic estimate. */
function bodyTokens(api: E2ETraffic['api'], body: Record<string, unknown>): number {
  // The scripted server's per-format unit table counts every API, Responses included.
  return estimateRequestTokens(api, body);
}

/**
 * What must survive a hard compaction, checked where it counts: at least one hard compaction
 * replaced the history, and every request the server received from the first one on still shows
 * each fact (the agent's plan, the user's task) somewhere in its text.
 */
export function checkSurvivesHard(traffic: E2ETraffic, facts: string[]): E2ECheck {
  const firstHard = traffic.records.findIndex((record) => record.layer === 'hard');
  const after = firstHard === -1 ? [] : traffic.server.slice(firstHard);
  const missing = new Set<string>();
  for (const request of after) {
    const text = JSON.stringify(request.body);
    for (const fact of facts) if (!text.includes(JSON.stringify(fact).slice(1, -1))) missing.add(fact);
  }
  return {
    name: 'the plan and the user task survive the hard compaction',
    passed: after.length > 0 && missing.size === 0,
    detail:
      firstHard === -1
        ? 'no hard compaction happened'
        : `${after.length} requests from the first hard compaction on${missing.size ? `; missing: ${[...missing].join(' | ')}` : ', each showing all of them'}`,
  };
}

/**
 * The compactions went upstream: at least one compaction whose result the server received, and
 * no fallback (a compaction failed or rejected, the client's bytes sent instead) in any session.
 */
export function checkUpstreamCompactions(records: readonly ProxyRequestRecord[]): E2ECheck[] {
  const upstream = records.filter((record) => record.layer !== 'none' && record.fallback === undefined);
  const fallbacks = records.filter((record) => record.fallback !== undefined);
  const layers = upstream.map((record) => record.layer).join(', ');
  const reasons = [...new Set(fallbacks.map((record) => record.fallback))].join(' | ');
  return [
    {
      name: 'at least one compaction went upstream',
      passed: upstream.length > 0,
      detail: `${upstream.length} of ${records.length} requests${layers ? ` (${layers})` : ''}`,
    },
    {
      name: 'no compaction fell back to the client’s bytes',
      passed: fallbacks.length === 0,
      detail: fallbacks.length === 0 ? '0 fallbacks' : `${fallbacks.length} fallbacks: ${reasons}`,
    },
  ];
}

/** How far the proxy's "tokens sent" may be from what the server received without it. */
const MAX_SENT_DEVIATION = 0.1;

/**
 * "Tokens sent" is what the client sent: the proxy's figure within 10% of the input tokens the
 * server received, over every conversation request, in the same run without the proxy.
 */
export function checkTokensSent(reported: number | undefined, baseline: E2ETraffic): E2ECheck {
  // The same bodies counted the same way as the proxy counts what a client sends, so the two
  // figures differ only by what the proxy got wrong (the server's own estimate counts otherwise).
  const count = createRequestTokens();
  const direct = modelCalls(baseline).reduce(
    (sum, request) =>
      sum + ((request.body ? count(baseline.api, request.body) : undefined) ?? request.inputTokens ?? 0),
    0,
  );
  const deviation =
    reported === undefined || direct === 0 ? Number.NaN : Math.abs(reported - direct) / direct;
  return {
    name: `"tokens sent" is within ${MAX_SENT_DEVIATION * 100}% of what the server received without the proxy`,
    passed: deviation <= MAX_SENT_DEVIATION,
    detail: `${reported ?? '?'} reported, ${direct} without the proxy (${Number.isNaN(deviation) ? '?' : `${(100 * deviation).toFixed(1)}% off`})`,
  };
}

/** What the working set must show after a hard compaction: the file the agent edited, and the definition its edit changed. */
export interface EditedCode {
  /** The file's name (the block may show its path). */
  file: string;
  /** The name of the definition the edit changed. */
  definition: string;
}

/**
 * The working set reached the agent: the first request the server received from the first hard
 * compaction on carries a `<working_set>` block naming the file the agent edited and the
 * definition its edit changed.
 */
export function checkWorkingSetAfterHard(traffic: E2ETraffic, edited: EditedCode): E2ECheck {
  const name = `after the hard compaction the working set shows ${edited.file} and ${edited.definition}`;
  const firstHard = traffic.records.findIndex((record) => record.layer === 'hard');
  const request = firstHard === -1 ? undefined : traffic.server[firstHard];
  if (!request) return { name, passed: false, detail: 'no hard compaction happened' };
  const block = workingSetBlock(request.body);
  if (block === undefined)
    return { name, passed: false, detail: `request ${firstHard} carries no ${workingSetOpen}> block` };
  const missing = [edited.file, edited.definition].filter((word) => !block.includes(word));
  const changed = block.split('\n').find((line) => line.includes(edited.definition));
  return {
    name,
    passed: missing.length === 0,
    detail: `request ${firstHard}: ${block.length} characters of working set${missing.length ? `; missing: ${missing.join(', ')}` : `; "${changed?.trim()}"`}`,
  };
}

/** The `<working_set>…</working_set>` block in any text of a request body. */
function workingSetBlock(body: unknown): string | undefined {
  if (typeof body === 'string') {
    const start = body.indexOf(workingSetOpen);
    if (start === -1) return undefined;
    const end = body.indexOf('</working_set>', start);
    return body.slice(start, end === -1 ? undefined : end + '</working_set>'.length);
  }
  const values = Array.isArray(body) ? body : typeof body === 'object' && body ? Object.values(body) : [];
  for (const value of values) {
    const block = workingSetBlock(value);
    if (block !== undefined) return block;
  }
  return undefined;
}

/**
 * The summary the proxy asked for reads the agent's cache: each summary request the server
 * received carries the agent's `thinking` setting and system prompt, and opens with the history of
 * the agent's request just before it, thinking blocks included, at least through its first
 * assistant turn (where a history without thinking blocks, or with the system messages moved into
 * the system prompt, parted). The detail says how much of that history each one shares.
 */
export function checkSummaryReadsCache(
  traffic: E2ETraffic,
  isSummary: (request: RecordedRequest) => boolean,
): E2ECheck {
  let previous: RecordedRequest | undefined;
  const shares: string[] = [];
  const parted: string[] = [];
  for (const request of traffic.allServer) {
    if (traffic.server.includes(request)) previous = request;
    if (!isSummary(request)) continue;
    const before = conversation(traffic.api, previous?.body);
    const shared = sharedPrefix(before, conversation(traffic.api, request.body).slice(0, -1));
    shares.push(`${shared}/${before.length}`);
    const firstAssistant = before.findIndex(
      (message) => (message as { role?: unknown }).role === 'assistant',
    );
    const same = (field: string) =>
      JSON.stringify(request.body[field]) === JSON.stringify(previous?.body[field]);
    if (!same('thinking') || !same('system') || shared <= firstAssistant) parted.push(String(request.index));
  }
  return {
    name: "the summary request shares the agent's cached prefix (its thinking, system and history)",
    passed: shares.length > 0 && parted.length === 0,
    detail:
      shares.length === 0
        ? 'no summary request'
        : `messages shared with the request before: ${shares.join(', ')}${parted.length ? `; parted: requests ${parted.join(', ')}` : ''}`,
  };
}

/** The id of the one `recall` call the e2e script makes. */
export const E2E_RECALL_CALL_ID = 'call_e2e_recall';

/**
 * `--recall` with a real agent: the proxy offered `recall` beside the agent's tools, answered the
 * model's call itself (the server got the call's result in the next request), and the agent never
 * saw the call (none of its own requests holds it).
 */
export function checkRecallAnswered(traffic: E2ETraffic): E2ECheck[] {
  const holdsCall = (body: unknown) => JSON.stringify(body ?? '').includes(E2E_RECALL_CALL_ID);
  const offered = traffic.allServer.filter((request) => declaresRecall(request.body)).length;
  const answered = traffic.allServer.filter((request) => holdsCall(request.body)).length;
  const seen = traffic.client.filter((request) => holdsCall(request.body)).length;
  return [
    {
      name: 'the proxy offered recall and answered the model’s call itself',
      passed: offered > 0 && answered > 0,
      detail: `${offered} requests offered recall; ${answered} carried the call's result to the server`,
    },
    {
      name: 'the agent never saw the recall call',
      passed: seen === 0 && traffic.client.length > 0,
      detail: `${seen} of the agent's ${traffic.client.length} requests held it`,
    },
  ];
}

/** True when a request body declares a tool named `recall`, in any API's shape. */
export function declaresRecall(body: Record<string, unknown> | undefined): boolean {
  return /"name":"recall"/.test(JSON.stringify(body?.tools ?? []));
}
