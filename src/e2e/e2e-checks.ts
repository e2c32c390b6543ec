/** What every end-to-end run must show, as named checks with the figures behind them. */

import type { ProxyRequestRecord } from '../proxy/index.js';
import { fingerprintMessage } from '../proxy/session-identity.js';
import { estimateRequestTokens, estimateTokens, type RecordedRequest } from '../testing/index.js';
import type { HopRequest } from './http-hop.js';

/** One check's outcome. */
export interface E2ECheck {
  name: string;
  passed: boolean;
  detail: string;
}

/** The request bodies of one agent conversation, from the client side and the server side. */
export interface E2ETraffic {
  api: 'anthropic' | 'responses';
  exitCode: number | null;
  /** What the agent sent to the proxy (its main conversation only). */
  client: HopRequest[];
  /** What the model server received for that conversation (summaries excluded). */
  server: RecordedRequest[];
  /** Every request the model server received. */
  allServer: RecordedRequest[];
  /** The proxy's records of the main conversation, in order. */
  records: ProxyRequestRecord[];
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
  const conversationOf = (body: Record<string, unknown> | undefined) =>
    ((traffic.api === 'anthropic' ? body?.messages : body?.input) as unknown[] | undefined) ?? [];
  // Only model API calls count; a client's HEAD / connectivity probe is not a request to validate.
  const apiRequests = traffic.allServer.filter(
    (request) => request.method === 'POST' && request.path.startsWith('/v1/'),
  );
  const invalid = apiRequests.filter((request) => invalidOutcomes.has(request.outcome));
  const tokens = (body: Record<string, unknown> | undefined) => bodyTokens(traffic.api, body ?? {});
  const clientMax = Math.max(0, ...traffic.client.map((request) => tokens(request.body)));
  const serverMax = Math.max(0, ...traffic.server.map((request) => tokens(request.body)));
  const compacted = traffic.records.filter((record) => record.layer !== 'none');
  let stablePairs = 0;
  const unstable: number[] = [];
  for (let index = 1; index < traffic.server.length; index += 1) {
    if (traffic.records[index]?.layer !== 'none') continue;
    const before = conversationOf(traffic.server[index - 1]?.body).map(fingerprintMessage);
    const after = conversationOf(traffic.server[index]?.body).map(fingerprintMessage);
    const extends_ =
      before.length <= after.length && before.every((item, position) => item === after[position]);
    if (extends_) stablePairs += 1;
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

/** Tokens of a request body by the scripted server's deterministic estimate. */
function bodyTokens(api: 'anthropic' | 'responses', body: Record<string, unknown>): number {
  return api === 'anthropic'
    ? estimateRequestTokens('anthropic', body)
    : estimateTokens([body.instructions ?? '', body.input ?? [], body.tools ?? []]);
}
