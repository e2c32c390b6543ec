import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ValidationProblem } from '../core/model/problems.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';
import { anthropicLoop, toolCallingScript } from './agent-loops.test-utils.js';
import type { RunningProxy } from './proxy-options.js';
import { startProxy } from './proxy-server.js';
import type { ProxyRequestRecord } from './proxy-stats.js';

// Lets the test make the proxy's check of each compacted request fail, to follow the fallback path.
const forced = vi.hoisted(() => ({ problem: undefined as ValidationProblem | undefined }));
vi.mock('../core/conversation/validate.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../core/conversation/validate.js')>();
  return {
    ...actual,
    validateMessages: (messages: unknown, options?: Parameters<typeof actual.validateMessages>[1]) =>
      forced.problem && options?.relativeTo !== undefined
        ? [forced.problem]
        : actual.validateMessages(messages, options),
  };
});

let server: ScriptedModelServer | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  forced.problem = undefined;
  await proxy?.close();
  await server?.close();
  proxy = undefined;
  server = undefined;
});

describe('a fallback on a model with preserved thinking', () => {
  it('goes on from the proxy’s own history, not the client’s copy, whose thinking was written after it', async () => {
    server = await startScriptedModelServer({ script: toolCallingScript });
    const records: ProxyRequestRecord[] = [];
    proxy = await startProxy({
      upstream: server.url,
      thresholds: { mid: 3000, hard: 6000 },
      log: () => {},
      onRequest: (record) => records.push(record),
    });
    let sent = 0;
    await anthropicLoop(proxy.url, {
      turns: 16,
      stream: true,
      thinking: true,
      model: 'claude-opus-5-5',
      onRequest: () => {
        // Once a compaction went upstream, every later one is refused by the proxy's own check.
        sent += 1;
        if (records.some((record) => record.layer !== 'none' && record.fallback === undefined))
          forced.problem = { path: 'messages[2].content[0]', message: 'forced', rule: 'unanswered-tool-use' };
      },
    });
    expect(sent).toBe(16);
    expect(records.some((record) => record.fallback !== undefined)).toBe(true);
    expect(server.requests.filter((request) => request.outcome === 'invalid-request')).toEqual([]);
  });
});
