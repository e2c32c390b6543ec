import { describe, expect, it } from 'vitest';
import type { ProxyRequestRecord } from '../proxy/index.js';
import type { RecordedRequest } from '../testing/index.js';
import { mainRecords, serverSide } from './agent-runs.js';
import {
  checkAgainstBaseline,
  checkRecallAnswered,
  checkSummaryReadsCache,
  checkSurvivesHard,
  checkTokensSent,
  checkTraffic,
  checkUpstreamCompactions,
  checkWorkingSetAfterHard,
  E2E_RECALL_CALL_ID,
  type E2ETraffic,
} from './e2e-checks.js';
import { valueForSchema } from './gemini-run.js';

const turn = (text: string) => ({ role: 'user', parts: [{ text }] });

function traffic(conversations: unknown[][]): E2ETraffic {
  const server = conversations.map(
    (contents, index) =>
      ({
        index,
        api: 'gemini',
        method: 'POST',
        path: '/v1beta/models/m:generateContent',
        body: { contents },
      }) as unknown as RecordedRequest,
  );
  return { api: 'gemini', exitCode: 0, client: [], server, allServer: server, records: [] };
}

describe('checkAgainstBaseline', () => {
  const long = 'x'.repeat(4000);
  const baseline = traffic([[turn('a')], [turn('a'), turn(long)], [turn('a'), turn(long), turn(long)]]);

  it('passes a run that stays small and extends its prefix', () => {
    const run = traffic([[turn('a')], [turn('a'), turn('b')], [turn('a'), turn('b'), turn('c')]]);
    expect(checkAgainstBaseline(run, baseline).map((check) => check.passed)).toEqual([true, true]);
  });

  it('fails a peak above 85% of the baseline and more than 4 rewrites', () => {
    const rewritten = Array.from({ length: 6 }, (_, index) => [turn(index % 2 ? long : 'z'), turn(long)]);
    const checks = checkAgainstBaseline(traffic(rewritten), baseline);
    expect(checks.map((check) => check.passed)).toEqual([false, false]);
    expect(checks[1]?.detail).toBe('5 of 5 requests (at 1, 2, 3, 4, 5)');
  });
});

describe('checkRecallAnswered', () => {
  const tools = [{ name: 'read' }, { name: 'recall' }];
  const call = { type: 'tool_use', id: E2E_RECALL_CALL_ID, name: 'recall' };
  const server = (bodies: Record<string, unknown>[]) =>
    bodies.map((body, index) => ({ index, body }) as unknown as RecordedRequest);
  const run = (serverBodies: Record<string, unknown>[], clientBodies: Record<string, unknown>[]) =>
    ({
      ...traffic([]),
      allServer: server(serverBodies),
      client: clientBodies.map((body) => ({ body })),
    }) as unknown as E2ETraffic;

  it('passes when recall was offered, its call answered upstream and never seen by the agent', () => {
    const checks = checkRecallAnswered(run([{ tools }, { tools, messages: [call] }], [{ messages: [] }]));
    expect(checks.map((check) => check.passed)).toEqual([true, true]);
  });

  it('fails a run where recall was never offered, or the agent saw the call', () => {
    const unoffered = checkRecallAnswered(run([{ tools: [{ name: 'read' }] }], [{ messages: [] }]));
    expect(unoffered[0]!.passed).toBe(false);
    const seen = checkRecallAnswered(run([{ tools, messages: [call] }], [{ messages: [call] }]));
    expect(seen.map((check) => check.passed)).toEqual([true, false]);
  });
});

describe('checkSurvivesHard', () => {
  const withLayers = (run: E2ETraffic, layers: string[]): E2ETraffic => ({
    ...run,
    records: layers.map((layer) => ({ layer }) as unknown as ProxyRequestRecord),
  });
  const run = traffic([
    [turn('task: count')],
    [turn('summary'), turn('#1 [pending] plan')],
    [turn('summary')],
  ]);

  it('passes only when a hard compaction happened and every later request shows every fact', () => {
    expect(checkSurvivesHard(withLayers(run, ['none', 'hard', 'none']), ['summary']).passed).toBe(true);
    const lost = checkSurvivesHard(withLayers(run, ['none', 'hard', 'none']), ['#1 [pending] plan']);
    expect(lost.passed).toBe(false);
    expect(lost.detail).toBe('2 requests from the first hard compaction on; missing: #1 [pending] plan');
    const noHard = checkSurvivesHard(withLayers(run, ['none', 'micro', 'none']), ['summary']);
    expect([noHard.passed, noHard.detail]).toEqual([false, 'no hard compaction happened']);
  });
});

describe('checkWorkingSetAfterHard', () => {
  const withLayers = (run: E2ETraffic, layers: string[]): E2ETraffic => ({
    ...run,
    records: layers.map((layer) => ({ layer }) as unknown as ProxyRequestRecord),
  });
  const block = (lines: string[]) => `<summary/>\n<working_set>\n${lines.join('\n')}\n</working_set>`;
  const edited = { file: 'usage.ts', definition: 'totalTokens' };

  it('passes when the first request from the hard compaction on shows the edited file and definition', () => {
    const shown = block([
      '## /w/usage.ts (edited t3)',
      '- * 7: export function totalTokens(usage: Usage): number {',
    ]);
    const run = withLayers(traffic([[turn('task')], [turn(shown)], [turn('later')]]), [
      'none',
      'hard',
      'none',
    ]);
    const check = checkWorkingSetAfterHard(run, edited);
    expect(check.passed).toBe(true);
    expect(check.detail).toContain('"- * 7: export function totalTokens(usage: Usage): number {"');
  });

  it.each([
    [
      'a block without the edited definition',
      [turn(block(['## /w/usage.ts (read t2)', '- also: formatUsage :11']))],
      'missing: totalTokens',
    ],
    ['no block at all', [turn('summary of totalTokens in usage.ts')], 'carries no <working_set> block'],
  ])('fails %s', (_, conversation, detail) => {
    const run = withLayers(traffic([[turn('task')], conversation]), ['none', 'hard']);
    const check = checkWorkingSetAfterHard(run, edited);
    expect(check.passed).toBe(false);
    expect(check.detail).toContain(detail);
  });

  it('fails without a hard compaction, even when a later request shows the block', () => {
    const shown = block(['## usage.ts (edited t3)', '- * totalTokens']);
    const check = checkWorkingSetAfterHard(withLayers(traffic([[turn(shown)]]), ['mid']), edited);
    expect([check.passed, check.detail]).toEqual([false, 'no hard compaction happened']);
  });
});

describe('checkUpstreamCompactions', () => {
  const record = (layer: string, fallback?: string) =>
    ({ layer, ...(fallback ? { fallback } : {}) }) as unknown as ProxyRequestRecord;

  it('passes a run with a compaction upstream and no fallback', () => {
    const checks = checkUpstreamCompactions([record('none'), record('micro'), record('hard')]);
    expect(checks.map((check) => [check.passed, check.detail])).toEqual([
      [true, '2 of 3 requests (micro, hard)'],
      [true, '0 fallbacks'],
    ]);
  });

  it('fails the run of issue #34: every compaction rejected, the client bytes sent instead', () => {
    const rejected =
      'compacted request rejected (micro): messages[1].role: role must be "user" or "assistant"';
    const checks = checkUpstreamCompactions([
      record('none'),
      record('none', rejected),
      record('none', rejected),
    ]);
    expect(checks.map((check) => check.passed)).toEqual([false, false]);
    expect(checks[1]?.detail).toBe(`2 fallbacks: ${rejected}`);
  });
});

describe('checkTokensSent', () => {
  const baseline = {
    ...traffic([]),
    allServer: [1000, 3000].map(
      (inputTokens) => ({ method: 'POST', path: '/v1/messages', inputTokens }) as unknown as RecordedRequest,
    ),
  };

  it.each([
    [4300, true],
    [3700, true],
    [3500, false],
    [undefined, false],
  ])('holds %s tokens reported against 4000 received without the proxy: %s', (reported, passed) => {
    expect(checkTokensSent(reported, baseline).passed).toBe(passed);
  });
});

describe('valueForSchema', () => {
  it('fills Gemini CLI router schemas, OpenAPI and JSON Schema spellings alike', () => {
    const router = {
      type: 'OBJECT',
      properties: { complexity_reasoning: { type: 'STRING' }, complexity_score: { type: 'INTEGER' } },
    };
    expect(valueForSchema(router)).toEqual({ complexity_reasoning: 'scripted', complexity_score: 50 });
    expect(valueForSchema({ type: 'object', properties: { next: { enum: ['user', 'model'] } } })).toEqual({
      next: 'user',
    });
  });
});

describe('checkSummaryReadsCache', () => {
  const thinking = { type: 'adaptive' };
  const turn = (index: number) => [
    { role: 'assistant', content: [{ type: 'thinking', thinking: '', signature: `s${index}` }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${index}`, content: 'x' }] },
  ];
  const history = [{ role: 'user', content: 'Read.' }, ...turn(1), ...turn(2)];
  const request = (index: number, body: Record<string, unknown>) =>
    ({ index, api: 'anthropic', method: 'POST', path: '/v1/messages', body }) as unknown as RecordedRequest;
  const run = (summaryBody: Record<string, unknown>): E2ETraffic => {
    const agent = request(0, { thinking, messages: history });
    const summary = request(1, summaryBody);
    return {
      api: 'anthropic',
      exitCode: 0,
      client: [],
      server: [agent],
      allServer: [agent, summary],
      records: [],
    };
  };
  const isSummary = (recorded: RecordedRequest) => recorded.index === 1;
  const instructions = {
    role: 'user',
    content: [...(history[4]!.content as object[]), { type: 'text', text: 'Write a summary.' }],
  };

  it('passes a summary with the agent’s thinking and history', () => {
    const check = checkSummaryReadsCache(
      run({ thinking, messages: [...history.slice(0, -1), instructions] }),
      isSummary,
    );
    expect(check).toMatchObject({ passed: true, detail: 'messages shared with the request before: 4/5' });
  });

  it('fails one that turned thinking off or left the thinking blocks out', () => {
    const off = run({ messages: [...history.slice(0, -1), instructions] });
    expect(checkSummaryReadsCache(off, isSummary).passed).toBe(false);
    const stripped = [history[0], { role: 'assistant', content: [] }, ...history.slice(2, -1), instructions];
    const check = checkSummaryReadsCache(run({ thinking, messages: stripped }), isSummary);
    expect(check).toMatchObject({
      passed: false,
      detail: 'messages shared with the request before: 1/5; parted: requests 1',
    });
  });
});

describe('a run with a refused request', () => {
  const message = (text: string) => ({ role: 'user', content: text });
  const spec = { isMain: () => true, isSummary: () => false };
  const request = (index: number, messages: unknown[], outcome: string) =>
    ({
      index,
      method: 'POST',
      path: '/v1/messages',
      body: { messages },
      outcome,
    }) as unknown as RecordedRequest;
  // The request hard compacted got a 429; the agent sent it again and the proxy sent the same
  // compacted body (layer none: nothing compacted anew). A second compaction came later.
  const compacted = [message('summary'), message('c')];
  const again = [message('second summary'), message('e')];
  const requests = [
    request(0, [message('a'), message('b')], 'tool-calls'),
    request(1, compacted, 'rate-limit'),
    request(2, compacted, 'tool-calls'),
    request(3, [...compacted, message('d')], 'tool-calls'),
    request(4, again, 'tool-calls'),
    request(5, [...again, message('f')], 'text'),
  ];
  const records = ['none', 'hard', 'none', 'none', 'hard', 'none'].map(
    (layer, index) =>
      ({
        api: 'anthropic',
        session: 's',
        layer,
        status: index === 1 ? 429 : 200,
      }) as unknown as ProxyRequestRecord,
  );

  it('pairs each record with the request it answered, and the retry with the attempt before it', () => {
    const side = serverSide(spec, requests);
    const main = mainRecords(records, 'anthropic');
    expect(side.server.map((answered) => answered.index)).toEqual([0, 2, 3, 4, 5]);
    expect(side.refused.map((refused) => refused.index)).toEqual([1]);
    expect(main).toHaveLength(side.server.length);
    const run: E2ETraffic = { api: 'anthropic', exitCode: 0, client: [], ...side, records: main };
    // Paired off by one, the record of request 5 said request 4 extended request 3 across the compaction.
    expect(checkTraffic(run)[3]).toMatchObject({
      passed: true,
      detail: '3 consecutive requests extended the previous one',
    });
  });
});
