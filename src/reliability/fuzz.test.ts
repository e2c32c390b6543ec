/**
 * Fuzzing: at least 10,000 seeded generated conversations per run (parallel tool calls, thinking
 * blocks, images, unknown blocks, huge and empty tool results). After every layer — micro every
 * turn (`cacheAware: false`), mid and hard forced, and the three chained — the output is a valid
 * request, the input is untouched, and the archive is complete: the input rebuilds exactly from
 * the output plus the archive. Generated conversations that break the rules as well must never
 * make the compactor throw anything but a CompactError, and lose nothing when it compacts them.
 *
 * A failure prints fast-check's seed and path; replay with FUZZ_SEED=<seed> (and FUZZ_RUNS).
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ArchiveStore } from '../core/archive/archive-store.js';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { rebuildConversation } from '../core/archive/rebuild.js';
import { createCompactor } from '../core/compactor.js';
import type { CompactorOptions } from '../core/compactor-options.js';
import {
  arbitraryAnyConversation,
  arbitraryValidConversation,
  requestEnds,
  withReusedIds,
} from '../core/conversation/arbitrary-conversation.test-utils.js';
import { validateMessages } from '../core/conversation/validate.js';
import { CompactError } from '../core/model/errors.js';
import type { Message } from '../core/model/messages.js';

const seed = Number(process.env.FUZZ_SEED ?? 20261130);
const validRuns = Number(process.env.FUZZ_RUNS ?? 10_000);
const invalidRuns = Math.max(1, Math.floor(validRuns / 5));
const sessionRuns = Math.max(1, Math.floor(validRuns / 10));
const system = 'You are a coding agent.';

/** Small thresholds and no backoff, so every layer runs on small generated histories, fast. */
function fuzzCompactor(hard: number, extra: CompactorOptions = {}) {
  const archive = createMemoryArchiveStore();
  const compactor = createCompactor({
    thresholds: { mid: Math.floor(hard / 2), hard },
    archive,
    sessionId: 'fuzz',
    micro: { cacheAware: false, minTokens: 1, keepTurns: 1 },
    mid: { keepToolResults: 1, maxAssistantChars: 40, maxToolInputTokens: 5 },
    hard: { retryDelayMs: 0, maxAttempts: 1, maxSummaryTokens: 400 },
    ...extra,
  });
  return { compactor, archive };
}

/** The input rebuilds exactly from the output plus the archive (a fast check; vitest's diff on failure). */
async function expectComplete(
  original: readonly Message[],
  output: readonly Message[],
  archive: ArchiveStore,
) {
  const rebuilt = rebuildConversation(output, await archive.list('fuzz'));
  if (!isDeepStrictEqual(rebuilt, original)) expect(rebuilt).toEqual(original);
}

function expectValid(messages: readonly Message[]) {
  const problems = validateMessages(messages, { system });
  if (problems.length > 0) expect(problems).toEqual([]);
}

let checked = 0;
const layersSeen = new Map<string, number>();
const see = (layer: string) => layersSeen.set(layer, (layersSeen.get(layer) ?? 0) + 1);

describe(`fuzzing (seed ${seed})`, () => {
  it(`${validRuns} valid conversations: after micro, mid and hard (forced, and chained), the output is valid and the archive complete`, async () => {
    console.info(`fuzz: seed ${seed}, ${validRuns} conversations (replay with FUZZ_SEED=${seed})`);
    await fc.assert(
      fc.asyncProperty(
        arbitraryValidConversation(),
        fc.constantFrom(1_000_000, 2000, 200),
        async (messages, hard) => {
          const snapshot = structuredClone(messages);
          // Micro (every turn, no batching), then mid, then hard on one compactor, as in a session:
          // after each step the output is valid and the archive complete.
          {
            const { compactor, archive } = fuzzCompactor(1_000_000);
            let current: readonly Message[] = messages;
            for (const force of [undefined, 'mid', 'hard'] as const) {
              const result = await compactor.maybeCompact(current, { system, ...(force ? { force } : {}) });
              see(`${force ? `chained ${force}` : 'micro'}:${result.layer}`);
              expectValid(result.messages);
              expect(result.tokensAfter).toBeLessThanOrEqual(result.tokensBefore);
              await expectComplete(messages, result.messages, archive);
              current = result.messages;
            }
          }
          // Mid and hard forced on the whole history, with thresholds that may also trigger hard.
          for (const force of ['mid', 'hard'] as const) {
            const { compactor, archive } = fuzzCompactor(hard);
            const result = await compactor.maybeCompact(messages, { system, force });
            see(`${force}:${result.layer}`);
            expectValid(result.messages);
            expect(result.tokensAfter).toBeLessThanOrEqual(result.tokensBefore);
            await expectComplete(messages, result.messages, archive);
          }
          if (!isDeepStrictEqual(messages, snapshot)) expect(messages).toEqual(snapshot);
          checked += 1;
        },
      ),
      { numRuns: validRuns, seed },
    );
    console.info(
      `fuzz: ${checked} conversations checked; layers run: ${[...layersSeen].map(([key, count]) => `${key} ${count}`).join(', ')}`,
    );
    expect(checked).toBeGreaterThanOrEqual(validRuns);
    // The generator reached every layer.
    for (const key of ['micro:micro', 'chained mid:mid', 'chained hard:hard', 'mid:mid', 'hard:hard'])
      expect(layersSeen.get(key) ?? 0).toBeGreaterThan(0);
  });

  it(`${invalidRuns} rule-breaking conversations: a CompactError or a result, and nothing lost when it compacts`, async () => {
    let errors = 0;
    await fc.assert(
      fc.asyncProperty(
        arbitraryAnyConversation(),
        fc.constantFrom(undefined, 'mid', 'hard'),
        async (messages, force) => {
          const { compactor, archive } = fuzzCompactor(2000);
          try {
            const result = await compactor.maybeCompact(messages, force ? { force } : {});
            await expectComplete(messages, result.messages, archive);
          } catch (error) {
            if (!CompactError.isInstance(error)) throw error;
            errors += 1;
          }
        },
      ),
      { numRuns: invalidRuns, seed: seed + 1 },
    );
    console.info(`fuzz: ${invalidRuns} rule-breaking conversations, ${errors} refused with a CompactError`);
  });
});

/** Session variants: the ids the client sends, and whether the model has the recall tool. */
const sessionKinds = [
  { ids: 'unique', recall: true, layers: 'small' },
  { ids: 'unique', recall: false, layers: 'small' },
  { ids: 'reused every turn', recall: true, layers: 'small' },
  { ids: 'reused every turn', recall: false, layers: 'small' },
  // As a user runs it: every layer at its defaults (batching, kept reads, files back, the working
  // set), only the thresholds small.
  { ids: 'unique', recall: true, layers: 'default' },
  { ids: 'reused every turn', recall: false, layers: 'default' },
] as const;

/** A compactor with the session fuzz's thresholds and, with `default` layers, nothing else set. */
function sessionCompactor(hard: number, recall: boolean, layers: 'small' | 'default') {
  if (layers === 'small') return fuzzCompactor(hard, { recall });
  const archive = createMemoryArchiveStore();
  const thresholds = { mid: Math.floor(hard / 2), hard };
  return { archive, compactor: createCompactor({ archive, sessionId: 'fuzz', recall, thresholds }) };
}

describe(`fuzzing sessions (seed ${seed})`, () => {
  // A session sends one request per turn: through the proxy the client resends its own whole
  // history; a library caller carries the compactor's output forward and appends the new turn.
  const cases = (['resends its own history', 'carries the output forward'] as const).flatMap((style) =>
    sessionKinds.map((kind) => ({ style, ...kind })),
  );
  it.each(cases)(
    `${sessionRuns} generated sessions whose client $style, tool call ids $ids, recall $recall, $layers layers: every request valid, no larger and rebuildable`,
    async ({ style, ids, recall, layers }) => {
      await fc.assert(
        fc.asyncProperty(
          arbitraryValidConversation(),
          fc.constantFrom(400, 1500, 4000),
          async (generated, hard) => {
            const messages = ids === 'unique' ? generated : withReusedIds(generated);
            const { compactor, archive } = sessionCompactor(hard, recall, layers);
            let previous: Message[] = [];
            let sent = 0;
            for (const end of requestEnds(messages)) {
              const original = messages.slice(0, end);
              const input =
                style === 'resends its own history' ? original : [...previous, ...messages.slice(sent, end)];
              const result = await compactor.maybeCompact(input, { system });
              expect(result.tokensAfter).toBeLessThanOrEqual(result.tokensBefore);
              // Reused ids break the Anthropic rules already in the input: no new problem.
              const problems = validateMessages(result.messages, { system, relativeTo: input });
              if (problems.length > 0) expect(problems).toEqual([]);
              await expectComplete(original, result.messages, archive);
              previous = result.messages;
              sent = end;
            }
          },
        ),
        { numRuns: sessionRuns, seed: seed + 2 },
      );
    },
  );
});

describe('regressions the fuzzer found', () => {
  const tiny = { keepToolResults: 1, maxAssistantChars: 40, maxToolInputTokens: 5 };
  it.each([
    {
      name: 'a small tool input field is not replaced by a larger [elided: …] placeholder',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'read' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_0_0', name: 'read_file', input: { path: 'a.ts', line: 0 } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0_0' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1_0', name: 'read_file', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1_0', content: 'read' }] },
      ],
    },
    {
      name: 'a text just over maxAssistantChars is not replaced by a longer cut plus its note',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'read' }] },
        {
          role: 'assistant',
          content: [{ type: 'text', text: 'read src/index.ts line\nbreak read line\nbreak' }],
        },
        { role: 'user', content: [{ type: 'text', text: 'more' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
      ],
    },
  ] as { name: string; messages: Message[] }[])(
    'forced mid never grows the context: $name',
    async ({ messages }) => {
      const archive = createMemoryArchiveStore();
      const compactor = createCompactor({
        archive,
        sessionId: 'fuzz',
        mid: tiny,
        thresholds: { mid: 1e6, hard: 2e6 },
      });
      const result = await compactor.maybeCompact(messages, { system, force: 'mid' });
      expect(result.tokensAfter).toBeLessThanOrEqual(result.tokensBefore);
      expectValid(result.messages);
      await expectComplete(messages, result.messages, archive);
    },
  );

  it('two tool_use blocks under one id (invalid input) each keep their own elided input', async () => {
    const patch =
      "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.ts\n@@\n-\n+\n*** End Patch\nEOF";
    const messages: Message[] = [
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1_0', name: 'bash', input: { command: patch } }],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1_0', name: 'bash', input: { content: 'x'.repeat(2000) } }],
      },
      { role: 'assistant', content: [] },
    ];
    const { compactor, archive } = fuzzCompactor(2000);
    const result = await compactor.maybeCompact(messages, { force: 'mid' });
    // Both inputs were elided: each placeholder names an item of its own.
    expect(JSON.stringify(result.messages.slice(0, 2))).not.toContain('Begin Patch');
    expect(JSON.stringify(result.messages.slice(0, 2))).not.toContain('x'.repeat(2000));
    await expectComplete(messages, result.messages, archive);
  });
});
