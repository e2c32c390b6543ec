import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../testing/index.js';
import { anthropicLoop, isSummaryRequest } from './agent-loops.test-utils.js';
import { useProxyHarness } from './proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

/** Reads three files in turn, over and over, as an agent checking its work does. */
function rereadingScript(request: Pick<RecordedRequest, 'body'>): ScriptStep {
  if (isSummaryRequest(request))
    return '## Task and constraints\nRead the files.\n## Current state\nReading.';
  const turn = Array.isArray(request.body.messages) ? request.body.messages.length : 0;
  return {
    type: 'tool-calls',
    calls: [{ name: 'read_file', input: { path: `src/file-${Math.floor(turn / 2) % 3}.ts` } }],
  };
}

describe('supersede and the session ledger through the proxy', () => {
  it('forwards an older read of a file as a pointer to the newer one, and the ledger after the hard summary', async () => {
    const { server, proxy, records } = await startProxyOver(rereadingScript, {
      thresholds: { mid: 2_000, hard: 4_500 },
      summarizer: 'same',
    });
    await anthropicLoop(proxy.url, {
      turns: 20,
      task: 'Check the three files twice, then stop.',
    });
    const forwarded = server.requests.filter((request) => !isSummaryRequest(request));
    const texts = forwarded.map((request) => JSON.stringify(request.body));
    expect(
      texts.some((text) => /used read_file\(src\/file-0\.ts\) → superseded by the newer copy/.test(text)),
    ).toBe(true);
    const firstHard = records.findIndex((record) => record.layer === 'hard');
    expect(firstHard).toBeGreaterThan(-1);
    for (const text of texts.slice(firstHard)) {
      expect(text).toContain('<session_ledger>');
      for (const file of ['file-0.ts', 'file-1.ts', 'file-2.ts']) expect(text).toContain(file);
      expect(text).toContain('Check the three files twice, then stop.');
    }
  });
});
