/**
 * A model server that gives every tool call the same id (`call_0`, as some OpenAI-compatible local
 * servers do) through Chat Completions: each masked result keeps its own placeholder and archive
 * item, and recall brings back the result the placeholder names, not another under the same id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type RecordedRequest, type ScriptStep, startScriptedModelServer } from '../../testing/index.js';
import { isSummaryRequest, openAIChatLoop, toolCallingScript } from '../agent-loops.test-utils.js';
import { startProxy } from '../proxy-server.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Placeholders of reads in a request: the file each names and its recall id. */
function placeholders(request: Pick<RecordedRequest, 'body'>): { file: number; id: string }[] {
  const text = JSON.stringify(request.body.messages);
  return [...text.matchAll(/read_file\(src\/file-(\d+)\.ts\)[^\]]*recall (r\d+)\]/g)].map((match) => ({
    file: Number(match[1]),
    id: match[2]!,
  }));
}

/** Tool calls under one id until two placeholders exist, then a recall of the second, then text. */
function reusedIdScript() {
  let recalled = false;
  return (request: Omit<RecordedRequest, 'outcome'>): ScriptStep => {
    if (recalled) return 'Recalled and done.';
    const found = isSummaryRequest(request) ? [] : placeholders(request);
    if (found.length < 2) {
      const step = toolCallingScript(request);
      if (typeof step === 'string' || step.type !== 'tool-calls') return step;
      return { ...step, calls: step.calls.map((call) => ({ ...call, id: 'call_0' })) };
    }
    recalled = true;
    return {
      type: 'tool-calls',
      text: 'Let me look again.',
      calls: [{ id: 'call_recall_1', name: 'recall', input: { id: found[1]!.id } }],
    };
  };
}

describe('a tool call id the model server reuses on every turn', () => {
  it('keeps one placeholder and archive item per result, and recall returns the one named', async () => {
    // A local server that takes the reused ids (OpenAI's own rules refuse them).
    const server = await startScriptedModelServer({ script: reusedIdScript(), validation: 'off' });
    closers.push(() => server.close());
    const proxy = await startProxy({
      upstream: server.url,
      thresholds: { mid: 3000, hard: 6000 },
      summarizer: 'extractive',
      recall: true,
    });
    closers.push(() => proxy.close());
    const history = await openAIChatLoop(`${proxy.url}/v1`, { turns: 20 });
    expect(JSON.stringify(history.at(-1))).toContain('Recalled and done.');
    const agentRequests = server.requests.filter((request) => !isSummaryRequest(request));
    const recallRequest = agentRequests.findIndex((request) => placeholders(request).length >= 2);
    const found = placeholders(agentRequests[recallRequest]!);
    // Each placeholder names its own read and its own archive item.
    expect(new Set(found.map((entry) => entry.file)).size).toBe(found.length);
    expect(new Set(found.map((entry) => entry.id)).size).toBe(found.length);
    // The loop's turn t reads src/file-(2 + 2t).ts and gets "output of step t".
    const step = (found[1]!.file - 2) / 2;
    const answered = JSON.stringify(agentRequests.at(-1)!.body.messages);
    expect(answered).toMatch(
      new RegExp(`"tool_call_id":"call_recall_1","content":"output of step ${step}\\\\nconst value`),
    );
  });
});
