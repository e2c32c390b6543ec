import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../testing/index.js';
import type { AgentRun, AgentSpec } from './agent-runs.js';
import { rateLimitChecks } from './fault-run.js';

const spec = {
  isMain: (request: { body?: Record<string, unknown> }) => request.body?.summary !== true,
  isSummary: (request: { body?: Record<string, unknown> }) => request.body?.summary === true,
} as AgentSpec;

function run(requests: Array<[Record<string, unknown>, string]>): AgentRun {
  const allServer = requests.map(
    ([body, outcome], index) => ({ index, body, outcome }) as unknown as RecordedRequest,
  );
  return { traffic: { allServer } } as unknown as AgentRun;
}

describe('rateLimitChecks', () => {
  const compacted = { messages: ['summary', 'c'] };

  it('passes a retry sent as the refused request went, with no summary between them', () => {
    const checks = rateLimitChecks(
      run([
        [compacted, 'rate-limit'],
        [compacted, 'tool-calls'],
      ]),
      spec,
    );
    expect(checks.map((check) => check.passed)).toEqual([true, true]);
  });

  it('fails a retry compacted anew: another body, a summary paid again', () => {
    const checks = rateLimitChecks(
      run([
        [compacted, 'rate-limit'],
        [{ summary: true }, 'text'],
        [{ messages: ['another summary', 'c'] }, 'tool-calls'],
      ]),
      spec,
    );
    expect(checks.map((check) => check.passed)).toEqual([false, false]);
    expect(checks[0]?.detail).toBe('request 0 refused, retried as request 2, another body');
  });

  it('fails a run in which nothing was refused', () => {
    expect(rateLimitChecks(run([[compacted, 'tool-calls']]), spec)[0]?.passed).toBe(false);
  });
});
