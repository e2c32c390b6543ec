import type { BetaCompactionBlockParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { rebuildConversation } from './archive/rebuild.js';
import { createCompactor } from './compactor.js';
import type { MaybeCompactOptions } from './compactor-options.js';
import { codexSession, encryptedSample } from './conversation/responses-input.test-utils.js';
import type { ResponsesInputItem } from './conversation/responses-types.js';
import { toolTurn } from './conversation/session-builder.test-utils.js';
import { validateMessages } from './conversation/validate.js';
import type { Message } from './model/messages.js';
import type { SummaryModel, SummaryRequest } from './summary/summary-model.js';
import { fromResponsesInput, toResponsesInput } from './wire/responses/responses-format.js';

/** Text only the history before the provider compaction holds. */
const beforeMarker = 'BEFORE_BOUNDARY';
const anthropicCompaction: BetaCompactionBlockParam = {
  type: 'compaction',
  content: 'The user asked to fix the failing tests; modules 1-8 were read.',
  encrypted_content: 'ENCRYPTED_COMPACTION_METADATA',
};

/** Long assistant text (mid cuts it) in the turns on both sides of the boundary. */
const longText = (number: number) =>
  `Step ${number}: ${'I read the module and noted what it does. '.repeat(40)}`;

/** An Anthropic session with a server-side compaction after turn 8, then 12 more tool turns. */
function anthropicSession(): { messages: Message[]; boundary: number } {
  const messages: Message[] = [{ role: 'user', content: `${beforeMarker} fix the failing tests` }];
  for (let number = 1; number <= 8; number++) messages.push(...toolTurn(number, { text: longText(number) }));
  const boundary = messages.length;
  messages.push(
    {
      role: 'assistant',
      content: [{ ...anthropicCompaction }, { type: 'text', text: 'Continuing from the summary.' }],
    },
    { role: 'user', content: 'AFTER_BOUNDARY keep going' },
  );
  for (let number = 9; number <= 20; number++) messages.push(...toolTurn(number, { text: longText(number) }));
  return { messages, boundary };
}

/** A Codex session with an OpenAI `compaction` item after turn 6 (of 18). */
function responsesSession(): { items: ResponseInputItem[]; boundary: number } {
  const session = codexSession(18);
  const cut = session.findIndex((item) => item.type === 'reasoning' && item.id === 'rs_7');
  const items: ResponseInputItem[] = [
    ...session.slice(0, cut),
    { type: 'compaction', id: 'cmp_001', encrypted_content: `${encryptedSample}COMPACTION` },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'AFTER_BOUNDARY keep going' }] },
    ...session.slice(cut),
  ];
  return { items, boundary: cut };
}

/** A summarizer that records what it was sent. */
function recordingSummarizer(): SummaryModel & { requests: SummaryRequest[] } {
  const requests: SummaryRequest[] = [];
  return {
    specificationVersion: 'v1',
    provider: 'test',
    modelId: 'recording',
    requests,
    async summarize(request) {
      requests.push(structuredClone(request));
      return { text: '## Task\nMake the tests pass.\n## Progress\nRead modules; patched some.' };
    },
  };
}

/** Thresholds no automatic layer reaches, micro unbatched: each case picks its layer with `force`. */
function compactorFor(summarizer: SummaryModel) {
  return createCompactor({
    summarizer,
    thresholds: { mid: 1_000_000, hard: 2_000_000 },
    micro: { keepTurns: 2, cacheAware: false },
  });
}

const layers = [
  ['micro', undefined],
  ['mid', 'mid'],
  ['hard', 'hard'],
] as const;

describe('an earlier provider compaction is a boundary for maybeCompact', () => {
  it.each(layers)('Anthropic compaction block, %s: the head goes out unchanged', async (layer, force) => {
    const { messages, boundary } = anthropicSession();
    const original = JSON.stringify(messages);
    const summarizer = recordingSummarizer();
    const compactor = compactorFor(summarizer);
    const options: MaybeCompactOptions = { system: 'You are a coding agent.', ...(force ? { force } : {}) };
    const result = await compactor.maybeCompact(messages, options);

    expect(result.layer).toBe(layer);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    // Up to and including the compaction, the same messages, byte for byte.
    for (let index = 0; index <= boundary; index++) expect(result.messages[index]).toBe(messages[index]);
    expect(JSON.stringify(result.messages.slice(0, boundary + 1))).toBe(
      JSON.stringify(JSON.parse(original).slice(0, boundary + 1)),
    );
    expect(result.messages.slice(boundary + 1)).not.toEqual(messages.slice(boundary + 1));
    expect(validateMessages(result.messages)).toEqual([]);
    const archive = await compactor.archive.list(compactor.sessionId);
    expect(JSON.stringify(rebuildConversation(result.messages, archive))).toBe(original);
    // The summarizer reads only what follows the boundary, and nothing encrypted.
    if (layer === 'hard') expect(summarizer.requests.length).toBeGreaterThan(0);
    for (const request of summarizer.requests) {
      const sent = JSON.stringify(request);
      expect(sent).toContain('AFTER_BOUNDARY');
      expect(sent).not.toContain(beforeMarker);
      expect(sent).not.toContain('ENCRYPTED');
    }
  });

  it.each(layers)('Responses compaction item, %s: the head goes out unchanged', async (layer, force) => {
    const { items, boundary } = responsesSession();
    const summarizer = recordingSummarizer();
    const compactor = compactorFor(summarizer);
    const { messages, system } = fromResponsesInput(items as ResponsesInputItem[], {
      instructions: 'You are Codex.',
    });
    const result = await compactor.maybeCompact(messages, { system, ...(force ? { force } : {}) });
    const output = toResponsesInput(result.messages, system);

    expect(result.layer).toBe(layer);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    // Every item up to and including the compaction item, byte for byte.
    expect(JSON.stringify(output.slice(0, boundary + 1))).toBe(JSON.stringify(items.slice(0, boundary + 1)));
    expect(JSON.stringify(output.slice(boundary + 1))).not.toBe(JSON.stringify(items.slice(boundary + 1)));
    expect(validateMessages(output, { format: 'responses' })).toEqual([]);
    const archive = await compactor.archive.list(compactor.sessionId);
    const rebuilt = toResponsesInput(rebuildConversation(result.messages, archive), system);
    expect(JSON.stringify(rebuilt)).toBe(JSON.stringify(items));
    if (layer === 'hard') expect(summarizer.requests.length).toBeGreaterThan(0);
    for (const request of summarizer.requests) {
      const sent = JSON.stringify(request);
      expect(sent).toContain('AFTER_BOUNDARY');
      expect(sent).not.toContain('read module 1.');
      expect(sent).not.toContain(encryptedSample);
    }
  });

  it('keeps the head on the next calls too (the index covers only what follows it)', async () => {
    const { messages, boundary } = anthropicSession();
    const compactor = compactorFor(recordingSummarizer());
    let history = (await compactor.maybeCompact(messages)).messages;
    for (let number = 21; number <= 24; number++) {
      history.push(...toolTurn(number));
      history = (await compactor.maybeCompact(history)).messages;
    }
    for (let index = 0; index <= boundary; index++) expect(history[index]).toBe(messages[index]);
    expect(JSON.stringify(history)).toContain('toolu_24');
    expect(validateMessages(history)).toEqual([]);
  });

  it('counts the whole prompt, the head included', async () => {
    const { messages, boundary } = anthropicSession();
    const compactor = compactorFor(recordingSummarizer());
    const whole = await compactor.maybeCompact(messages, { force: 'hard' });
    const rest = await compactorFor(recordingSummarizer()).maybeCompact(messages.slice(boundary + 1), {
      force: 'hard',
    });
    expect(whole.tokensBefore - rest.tokensBefore).toBeGreaterThan(1000);
    // What the hard layer freed is the same on both: the head is counted, never compacted.
    expect(whole.tokensBefore - whole.tokensAfter).toBe(rest.tokensBefore - rest.tokensAfter);
  });

  it('a background summary covers only what follows the boundary too', async () => {
    const turn = (index: number): Message[] => [
      { role: 'assistant', content: [{ type: 'tool_use', id: `t${index}`, name: 'bash', input: { index } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: `t${index}`, content: `case ${index} output\n`.repeat(40) },
        ],
      },
    ];
    const full: Message[] = [{ role: 'user', content: `${beforeMarker} fix the shop service` }];
    for (let index = 0; index < 10; index++) full.push(...turn(index));
    const boundary = full.length;
    full.push(
      { role: 'assistant', content: [{ ...anthropicCompaction }] },
      { role: 'user', content: 'AFTER_BOUNDARY keep going' },
    );
    for (let index = 10; index < 60; index++) full.push(...turn(index));
    const summarizer = recordingSummarizer();
    const compactor = createCompactor({
      thresholds: { mid: 6000, hard: 12_000 },
      summarizer,
      micro: { cacheAware: true, clearAtLeast: 100_000 },
      mid: { keepToolResults: 1000 },
      hard: { background: true, backgroundThreshold: 9000 },
    });
    let length = boundary + 2;
    while (summarizer.requests.length === 0 && length < full.length) {
      length += 2;
      expect((await compactor.maybeCompact(full.slice(0, length))).layer).toBe('none');
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
    const later = full.slice(0, length + 2);
    const swapped = await compactor.maybeCompact(later);
    expect(swapped.layer).toBe('hard');
    for (let index = 0; index <= boundary; index++) expect(swapped.messages[index]).toBe(full[index]);
    expect(validateMessages(swapped.messages)).toEqual([]);
    const archive = await compactor.archive.list(compactor.sessionId);
    expect(rebuildConversation(swapped.messages, archive)).toEqual(later);
    expect(JSON.stringify(summarizer.requests)).not.toContain(beforeMarker);
  });
});
