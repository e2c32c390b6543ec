/**
 * A 429 on the request a hard compaction wrote, for the pinned Claude Code through the proxy: the
 * first main request the server receives with the summary in it is refused once (`retry-after`),
 * and Claude Code sends it again. The retry must go upstream as the refused request went (the
 * proxy keeps the compacted history it sent) and pay for no second summary.
 */
import type { RecordedRequest } from '@agent-compact/testing';
import type { AgentRun, AgentSpec } from './agent-runs.js';
import type { E2ECheck } from './e2e-checks.js';

type Script = (request: { body: Record<string, unknown> }) => unknown;

/** Seconds the 429 asks the client to wait. */
const RETRY_AFTER_SECONDS = 1;

/** `spec` whose server refuses, once, the first main request that carries `summaryText`. */
export function rateLimitedSpec(spec: AgentSpec, summaryText: string): AgentSpec {
  return {
    ...spec,
    script: (workspace) => {
      const script = spec.script(workspace) as Script;
      let refused = false;
      return ((request: { body: Record<string, unknown> }) => {
        const compacted =
          spec.isMain(request) &&
          !spec.isSummary(request) &&
          JSON.stringify(request.body).includes(summaryText);
        if (refused || !compacted) return script(request);
        refused = true;
        return { type: 'rate-limit', retryAfterSeconds: RETRY_AFTER_SECONDS };
      }) as never;
    },
  };
}

/** The refused request went upstream again unchanged, with no summary request between the two. */
export function rateLimitChecks(run: AgentRun, spec: AgentSpec): E2ECheck[] {
  const all = run.traffic.allServer;
  const refused = all.find((request) => request.outcome === 'rate-limit');
  const later = refused ? all.slice(all.indexOf(refused) + 1) : [];
  const retry = later.find((request) => spec.isMain(request) && !spec.isSummary(request));
  const between = retry
    ? later.slice(0, later.indexOf(retry)).filter((request) => spec.isSummary(request))
    : [];
  const summaries = all.filter((request) => spec.isSummary(request)).length;
  const same = refused !== undefined && retry !== undefined && sameBody(refused, retry);
  return [
    {
      name: 'the request refused with a 429 after the hard compaction went upstream again unchanged',
      passed: same,
      detail:
        refused === undefined
          ? 'no request was refused (no main request carried the summary)'
          : `request ${refused.index} refused, retried as ${retry ? `request ${retry.index}` : 'none'}${same ? ', the same body' : ', another body'}`,
    },
    {
      name: 'the retry paid for no second summary',
      passed: retry !== undefined && between.length === 0,
      detail: `${between.length} summary requests between the refused request and its retry; ${summaries} in the run`,
    },
  ];
}

function sameBody(a: RecordedRequest, b: RecordedRequest): boolean {
  return JSON.stringify(a.body) === JSON.stringify(b.body);
}
