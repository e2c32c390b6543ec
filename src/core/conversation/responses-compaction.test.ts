import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { rebuildConversation } from '../archive/rebuild.js';
import { createCompactor } from '../compactor.js';
import type { SummaryModel, SummaryRequest } from '../summary/summary-model.js';
import { fromResponsesInput, toResponsesInput } from '../wire/responses/responses-format.js';
import { codexSession, encryptedSample } from './responses-input.test-utils.js';
import type { ResponsesInputItem } from './responses-types.js';
import { validateMessages } from './validate.js';

type Item = Record<string, unknown>;

/** A summarizer that records what it was sent. */
function recordingSummarizer(): SummaryModel & { requests: SummaryRequest[] } {
  const requests: SummaryRequest[] = [];
  return {
    specificationVersion: 'v1',
    provider: 'test',
    modelId: 'recording',
    requests,
    async summarize(request) {
      requests.push(request);
      return { text: '## Task\nMake the tests pass.\n## Progress\nRead modules; patched some.' };
    },
  };
}

/** Every reasoning item of `output` is followed by the same item that followed it in `input`. */
function expectReasoningWithItsCall(input: readonly Item[], output: readonly Item[]): void {
  const followerIn = (items: readonly Item[], index: number) => {
    const next = items[index + 1];
    return next ? String(next.call_id ?? next.id ?? next.type) : 'end';
  };
  output.forEach((item, index) => {
    if (item.type !== 'reasoning') return;
    const original = input.findIndex((candidate) => candidate.id === item.id);
    expect(original).toBeGreaterThanOrEqual(0);
    expect(input[original]).toEqual(item);
    expect(followerIn(output, index)).toBe(followerIn(input, original));
  });
}

async function compactSession(force: 'mid' | 'hard' | undefined, session: ResponseInputItem[]) {
  const summarizer = recordingSummarizer();
  const compactor = createCompactor({
    summarizer,
    thresholds: force ? { mid: 1_000_000, hard: 2_000_000 } : { mid: 1_000_000, hard: 2_000_000 },
    micro: { keepTurns: 2, cacheAware: false },
  });
  const { messages, system } = fromResponsesInput(session as ResponsesInputItem[], {
    instructions: 'You are Codex.',
  });
  const result = await compactor.maybeCompact(messages, { system, ...(force ? { force } : {}) });
  const output = toResponsesInput(result.messages, system) as Item[];
  const archive = await compactor.archive.list(compactor.sessionId);
  return { result, output, archive, summarizer, system };
}

describe('compacting a Responses conversation', () => {
  it.each([
    ['micro', undefined],
    ['mid', 'mid'],
    ['hard', 'hard'],
  ] as const)('%s: valid Responses input, reasoning with its call, rebuilt exactly', async (layer, force) => {
    const session = codexSession(12);
    const { result, output, archive, system } = await compactSession(force, session);
    expect(result.layer).toBe(layer);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(validateMessages(output, { format: 'responses' })).toEqual([]);
    expectReasoningWithItsCall(session as unknown as Item[], output);
    const rebuilt = rebuildConversation(result.messages, archive);
    expect(JSON.stringify(toResponsesInput(rebuilt, system))).toBe(JSON.stringify(session));
  });

  it('micro and mid keep every reasoning item and its encrypted content as it came', async () => {
    const session = codexSession(12);
    for (const force of [undefined, 'mid'] as const) {
      const { output } = await compactSession(force, session);
      const reasoning = output.filter((item) => item.type === 'reasoning');
      expect(reasoning).toEqual(session.filter((item) => item.type === 'reasoning'));
    }
  });

  it('hard drops reasoning only with its turn, and never sends encrypted content to the summarizer', async () => {
    const session = codexSession(12);
    const { output, summarizer } = await compactSession('hard', session);
    expect(summarizer.requests.length).toBeGreaterThan(0);
    const sent = JSON.stringify(summarizer.requests);
    expect(sent).not.toContain(encryptedSample);

    // The kept turn's reasoning is still there, exactly; the dropped turns' are in the archive.
    expect(output.filter((item) => item.type === 'reasoning').length).toBeLessThan(12);
    expectReasoningWithItsCall(session as unknown as Item[], output);
  });

  it('hard never sends reasoning to the summarizer, not even a readable summary without encrypted content', async () => {
    const session = codexSession(12).map((item) => {
      if (item.type !== 'reasoning') return item;
      const { encrypted_content: _opaque, ...readable } = item;
      return readable;
    });
    const { summarizer } = await compactSession('hard', session);
    const sent = JSON.stringify(summarizer.requests);
    expect(sent).toContain('cat src/m1.ts');
    expect(sent).not.toContain('"reasoning"');
    expect(sent).not.toContain('read module 1.');
  });

  // A request sent mid tool loop ends with the call's output; one whose output list holds something
  // other than parts (null, a string) was kept whole, so the hard layer kept it without its call.
  it.each([
    ['null', [null]],
    ['a string', ['plain text']],
    ['a number and a part', [7, { type: 'input_text', text: 'ok' }]],
  ])('every layer keeps a call and an output list holding %s together', async (_name, output) => {
    const session = codexSession(12);
    session.push(
      {
        type: 'function_call',
        call_id: 'call_odd',
        name: 'shell',
        arguments: '{"command":["ls"]}',
      },
      { type: 'function_call_output', call_id: 'call_odd', output } as unknown as ResponseInputItem,
    );
    for (const force of [undefined, 'mid', 'hard'] as const) {
      const { output: compacted, archive, result, system } = await compactSession(force, session);
      const orphans = validateMessages(compacted, { format: 'responses' }).filter(
        (problem) => problem.rule === 'orphan-tool-message' || problem.rule === 'unanswered-tool-call',
      );
      expect(orphans).toEqual([]);
      const kept = compacted.filter((item) => item.call_id === 'call_odd');
      expect(kept.map((item) => item.type)).toEqual(['function_call', 'function_call_output']);
      // Untouched, the output goes back as it came; the whole input rebuilds exactly.
      expect(kept[1]!.output).toEqual(output);
      const rebuilt = rebuildConversation(result.messages, archive);
      expect(JSON.stringify(toResponsesInput(rebuilt, system))).toBe(JSON.stringify(session));
    }
  });
});
