/**
 * Recall ids reach the model only when it has the proxy's `recall` tool: without `--recall` the
 * session compactors run with the core's `recall: false` and the proxy forwards their output as it
 * is, so a user who types `recall r12` sends exactly that.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../testing/index.js';
import { anthropicLoop, isSummaryRequest, toolCallingScript } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

/** The user's own words, naming an id as a placeholder would. */
const task = 'Read every file; recall r12 (recall r9) from the last run is outdated.';
/** What the core writes when it names an archive id: a placeholder's marker, the summary head, the identity. */
const coreIds = /recall r\d+\]|recall="r\d+"|the recall tool| r\d+\)?$|rN = recall id/m;

/** The agent requests the scripted server saw, as JSON with the user's own text taken out. */
function forwardedWithoutTask(requests: readonly RecordedRequest[]): string[] {
  const quoted = JSON.stringify(task).slice(1, -1);
  return requests
    .filter((request) => !isSummaryRequest(request) && request.outcome !== 'count-tokens')
    .map((request) => JSON.stringify(request.body.messages).split(quoted).join(''));
}

/** True when a user message of the request has the task as one text block, byte for byte. */
function hasTaskVerbatim(request: RecordedRequest): boolean {
  const messages = request.body.messages as { role: string; content: unknown }[];
  return messages.some(
    (message) =>
      message.role === 'user' &&
      Array.isArray(message.content) &&
      message.content.some((block: { type?: string; text?: string }) => block.text === task),
  );
}

/** Thresholds at which the extractive loop below masks results (micro) or summarizes (hard). */
const runs = [
  ['micro', { mid: 3000, hard: 6000 }],
  ['hard', { mid: 1500, hard: 2500 }],
] as const;

/** What each layer writes, without an id and with one (as JSON inside the request). */
const written = {
  micro: [
    '[Previous: used read_file(src/file-1.ts) → 65 lines, 617 tokens; defines value]',
    /read_file\([^\]]*; recall r\d+\]/,
  ],
  hard: ['<context_summary>', /<context_summary recall=\\"r\d+\\">/],
} as const;

async function forwardedRun(
  layer: 'micro' | 'hard',
  thresholds: { mid: number; hard: number },
  recall: boolean,
) {
  const { server, proxy, records } = await startProxyOver(toolCallingScript, {
    thresholds,
    summarizer: 'extractive',
    recall,
  });
  await anthropicLoop(proxy.url, { turns: 14, task });
  expect(records.some((record) => record.layer === layer)).toBe(true);
  return { server, forwarded: forwardedWithoutTask(server.requests) };
}

describe('recall ids in forwarded requests', () => {
  it.each(runs)(
    'without --recall, after %s no request names an archive id and the user text goes as typed',
    async (layer, thresholds) => {
      const { server, forwarded } = await forwardedRun(layer, thresholds, false);
      expect(forwarded.join('\n')).toContain(written[layer][0]);
      // Line by line, so a ledger line ending in an id is caught too.
      for (const body of forwarded) expect(body.replaceAll('\\n', '\n')).not.toMatch(coreIds);
      const agentRequests = server.requests.filter((request) => !isSummaryRequest(request));
      expect(agentRequests.every(hasTaskVerbatim)).toBe(true);
    },
  );

  it.each(runs)('with --recall, what %s writes names its archive id', async (layer, thresholds) => {
    const { forwarded } = await forwardedRun(layer, thresholds, true);
    expect(forwarded.join('\n')).toMatch(written[layer][1]);
    if (layer === 'hard') expect(forwarded.join('\n')).toContain('the recall tool');
  });
});
