import type {
  BetaCompactionBlockParam,
  BetaContentBlockParam,
  BetaMessageParam,
  MessageCreateParamsNonStreaming,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../archive/memory-archive-store.js';
import { fakeFile } from '../conversation/session-builder.test-utils.js';
import { validateMessages } from '../conversation/validate.js';
import type { Message } from '../model/messages.js';
import type { SummaryModel, SummaryRequest } from '../summary/summary-model.js';
import { compactRequest } from './compact-request-once.js';

type AnthropicBody = Omit<MessageCreateParamsNonStreaming, 'betas'>;

/** One tool turn with extended thinking: signed thinking (and every third turn redacted thinking). */
function thinkingTurn(number: number): BetaMessageParam[] {
  const assistant: BetaContentBlockParam[] = [
    {
      type: 'thinking',
      thinking: `I should read module ${number} next.`,
      signature: `sig_${number}_EuYBCkQYAiJA`,
    },
  ];
  if (number % 3 === 0) assistant.push({ type: 'redacted_thinking', data: `ENCRYPTED_REDACTED_${number}` });
  assistant.push(
    { type: 'text', text: `Reading module ${number}.` },
    {
      type: 'tool_use',
      id: `toolu_${number}`,
      name: 'Read',
      input: { file_path: `/repo/src/m${number}.ts` },
    },
  );
  return [
    { role: 'assistant', content: assistant },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `toolu_${number}`, content: fakeFile(`m${number}`, 120) },
      ],
    },
  ];
}

const compactionBlock: BetaCompactionBlockParam = {
  type: 'compaction',
  content: 'The user asked to fix the failing tests; modules 1-40 were read; the bug is in m7.ts.',
  encrypted_content: 'ENCRYPTED_COMPACTION_METADATA',
  signature: 'sig_compaction_Eq0CCkYICxgC',
};

function thinkingBody(turns: number, { compactionAfter }: { compactionAfter?: number } = {}): AnthropicBody {
  const messages: BetaMessageParam[] = [{ role: 'user', content: 'BEFORE_BOUNDARY fix the failing tests' }];
  for (let number = 1; number <= turns; number++) {
    messages.push(...thinkingTurn(number));
    if (number === compactionAfter) {
      messages.push(
        {
          role: 'assistant',
          content: [compactionBlock, { type: 'text', text: 'Continuing from the summary.' }],
        },
        { role: 'user', content: 'AFTER_BOUNDARY keep going' },
      );
    }
  }
  return {
    model: 'claude-opus-4-5',
    max_tokens: 16_000,
    system: 'You are a coding agent.',
    thinking: { type: 'enabled', budget_tokens: 8000 },
    context_management: { edits: [{ type: 'compact_20260112' }] },
    messages,
  };
}

/** A summarizer that records what it was sent. */
function recordingSummarizer(requests: SummaryRequest[]): SummaryModel {
  return {
    specificationVersion: 'v1',
    provider: 'test',
    modelId: 'recording',
    async summarize(request) {
      requests.push(structuredClone(request));
      return { text: 'Summary: modules were read; the bug is in m7.ts.' };
    },
  };
}

const secrets = /sig_|ENCRYPTED_/;
const hard = { thresholds: { mid: 2000, hard: 4000 } } as const;

/** A kept tool result: as it came, or cut to its head and tail with the note naming the whole. */
function expectKeptOrCut(after: unknown, before: unknown): void {
  const [sent, came] = [JSON.stringify(after), JSON.stringify(before)];
  if (sent === came) return;
  expect(sent).toContain('…shortened;');
  expect(sent.length).toBeLessThan(came.length);
}

describe('provider-native items in whole requests', () => {
  it.each([
    ['micro', { micro: { cacheAware: false } }],
    ['mid', { micro: { cacheAware: false }, force: 'mid' as const }],
    ['hard', hard],
  ])('%s keeps the continued turn’s thinking and never alters a signed block', async (layer, options) => {
    const body = thinkingBody(12);
    const original = structuredClone(body.messages);
    const requests: SummaryRequest[] = [];
    const result = await compactRequest(body, { ...options, summarizer: recordingSummarizer(requests) });
    expect(result.layer).toBe(layer);
    const after = result.body.messages as Message[];
    // The turn being continued: the call as it came, its result too or (hard) its head and tail.
    expect(after.at(-2)).toEqual(original.at(-2));
    expectKeptOrCut(after.at(-1), original.at(-1));
    // Every thinking block still sent is one of the client's, byte for byte.
    const signed = (messages: readonly unknown[]) =>
      (messages as Message[])
        .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
        .filter((block) => /thinking/.test(block.type))
        .map((block) => JSON.stringify(block));
    const originalSigned = new Set(signed(original));
    for (const block of signed(after)) expect(originalSigned.has(block)).toBe(true);
    expect(validateMessages(after)).toEqual([]);
    // Nothing signed or encrypted reaches the summarizer.
    for (const request of requests) expect(JSON.stringify(request)).not.toMatch(secrets);
  });

  it('treats an earlier provider compaction as a boundary: what precedes it is sent as it came', async () => {
    const body = thinkingBody(40, { compactionAfter: 10 });
    const boundary = body.messages.findIndex(
      (message) => Array.isArray(message.content) && message.content[0]?.type === 'compaction',
    );
    const requests: SummaryRequest[] = [];
    const archive = createMemoryArchiveStore();
    const result = await compactRequest(body, {
      ...hard,
      archive,
      summarizer: recordingSummarizer(requests),
    });
    expect(result.layer).toBe('hard');
    const after = result.body.messages as Message[];
    for (let index = 0; index <= boundary; index++) expect(after[index]).toBe(body.messages[index]);
    // The summary first, then any files put back (hard.filesBack).
    const head = after[boundary + 1]!.content as { text: string }[];
    expect(head[0]).toEqual(expect.objectContaining({ text: expect.stringMatching(/^<context_summary/) }));
    for (const block of head.slice(1)) expect(block.text).toMatch(/^<file path="/);
    expect(after.length).toBeLessThan(body.messages.length);
    expect(validateMessages(after)).toEqual([]);
    // The summarizer saw only what follows the boundary, and nothing signed or encrypted.
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      const sent = JSON.stringify(request);
      expect(sent).toContain('AFTER_BOUNDARY');
      expect(sent).not.toContain('BEFORE_BOUNDARY');
      expect(sent).not.toMatch(secrets);
    }
  });

  it('gives the summarizer a provider compaction’s readable summary, never its encrypted part', async () => {
    // The compaction block is the first of the conversation (the SDK's newer placement).
    const body = thinkingBody(30);
    body.messages = [{ role: 'user', content: [compactionBlock] }, ...body.messages.slice(1)];
    const requests: SummaryRequest[] = [];
    const result = await compactRequest(body, { ...hard, summarizer: recordingSummarizer(requests) });
    expect(result.layer).toBe('hard');
    expect((result.body.messages as Message[])[0]).toBe(body.messages[0]);
    for (const request of requests) expect(JSON.stringify(request)).not.toMatch(secrets);
  });

  it('a failed provider compaction (no content) is no boundary', async () => {
    const body = thinkingBody(40);
    const failed: BetaCompactionBlockParam = { type: 'compaction', content: null, encrypted_content: null };
    body.messages.splice(1, 0, { role: 'assistant', content: [failed] }, { role: 'user', content: 'go on' });
    const result = await compactRequest(body, hard);
    expect(result.layer).toBe('hard');
    expect(JSON.stringify(result.body.messages)).not.toContain('"compaction"');
  });
});
