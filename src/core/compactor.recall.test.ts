// The `recall` option: with `false` the core writes no archive id into what the model reads, and
// still archives everything under its id (rebuild, handleRecall).
import { describe, expect, it } from 'vitest';
import { handleRecall } from './archive/compaction-tools.js';
import { createMemoryArchiveStore } from './archive/memory-archive-store.js';
import { rebuildConversation } from './archive/rebuild.js';
import { createCompactor } from './compactor.js';
import type { CompactorOptions } from './compactor-options.js';
import { agentSession } from './conversation/session-builder.test-utils.js';
import { CompactError } from './model/errors.js';
import type { Message } from './model/messages.js';
import { createExtractiveSummaryModel } from './summary/extractive-summary.js';
import type { SummaryModel, SummaryRequest } from './summary/summary-model.js';

/** Every way the core names an archive id: a marker, the summary head, a ledger line or note, the identity. */
const namedIds = /recall r\d+|recall="r\d+"|the recall tool| r\d+\)?$|rN = recall id/m;

/** The user's own words that look like an id: they go out as typed. */
const userText = 'Fix the failing tests; recall r12 (recall r9) is the old run.';

/** The agent session with the user's text first, and a long assistant note and tool input for mid. */
function session(turns: number): Message[] {
  const messages = agentSession(turns);
  messages[0] = { role: 'user', content: [{ type: 'text', text: userText }] };
  messages.splice(
    3,
    0,
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'The parser fails on nested brackets. '.repeat(40) },
        {
          type: 'tool_use',
          id: 'toolu_write',
          name: 'write_file',
          input: { path: 'src/big.ts', content: 'x = 1;\n'.repeat(2000) },
        },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_write', content: 'written' }] },
  );
  return messages;
}

/** The model's view of the messages, line by line, with the user's text taken out. */
function modelText(messages: readonly Message[]): string {
  const quoted = JSON.stringify(userText).slice(1, -1);
  return JSON.stringify(messages).split(quoted).join('').replaceAll('\\n', '\n');
}

function recordingSummarizer(): SummaryModel & { requests: SummaryRequest[] } {
  const extractive = createExtractiveSummaryModel();
  const requests: SummaryRequest[] = [];
  return {
    specificationVersion: 'v1',
    provider: 'test',
    modelId: 'recording',
    requests,
    summarize: (request, options) => {
      requests.push(request);
      return extractive.summarize(request, options);
    },
  };
}

async function compacted(options: CompactorOptions, force: 'mid' | 'hard') {
  const archive = createMemoryArchiveStore();
  const compactor = createCompactor({ archive, micro: { cacheAware: false }, ...options });
  const input = session(12);
  const result = await compactor.maybeCompact(input, { force });
  const items = await archive.list(compactor.sessionId);
  return { compactor, archive, input, result, items };
}

describe('recall: false', () => {
  it.each(['mid', 'hard'] as const)('%s writes no archive id and archives all the same', async (force) => {
    const { input, result, items, archive, compactor } = await compacted({ recall: false }, force);
    expect(result.layer).toBe(force);
    expect(result.archived.length).toBeGreaterThan(0);
    expect(modelText(result.messages)).not.toMatch(namedIds);
    expect(JSON.stringify(result.messages)).toContain(JSON.stringify(userText));
    expect(rebuildConversation(result.messages, items)).toEqual(input);
    // The host can still bring any item back by its id.
    const recalled = await handleRecall(
      { archive, sessionId: compactor.sessionId },
      { id: result.archived[0]! },
    );
    expect(recalled).toBeDefined();
  });

  it('mid writes the placeholders, the shortened note and the elided input without their ids', async () => {
    const { result } = await compacted({ recall: false }, 'mid');
    const text = JSON.stringify(result.messages);
    expect(text).toMatch(/\[Previous: used bash\(npm test -- part1\) → exit 0, 121 lines, [\d.]+k? tokens\]/);
    expect(text).toMatch(/…shortened; [\d.]+k? tokens in full\]/);
    expect(text).toMatch(/\[elided: 2k lines, [\d.]+k? tokens\]/);
  });

  it('hard writes its head, ledger and identity without ids, and does not ask the summarizer to keep any', async () => {
    const summarizer = recordingSummarizer();
    const { result } = await compacted({ recall: false, summarizer }, 'hard');
    const head = (result.messages[0]!.content as { text: string }[])[0]!.text;
    expect(head.startsWith('<context_summary>\n')).toBe(true);
    expect(head).toContain('Recorded by the compactor, not the summarizer (tN = assistant turn N).\n');
    expect(head).toContain(
      '<identity>\nYou are the same agent as before this summary, with the same tools and instructions. The summary above replaces the earlier conversation.\n</identity>',
    );
    const instructions = JSON.stringify(summarizer.requests.at(-1)!.messages.at(-1));
    expect(instructions).not.toContain('recall rN');
  });

  it('with the default, the same texts name their ids', async () => {
    const summarizer = recordingSummarizer();
    const mid = await compacted({}, 'mid');
    expect(modelText(mid.result.messages)).toMatch(/; recall r\d+\]/);
    const hard = await compacted({ summarizer }, 'hard');
    expect(modelText(hard.result.messages)).toMatch(
      /^<context_summary recall=\\?"r\d+\\?">|the recall tool/m,
    );
    expect(JSON.stringify(summarizer.requests.at(-1)!.messages.at(-1))).toContain('recall rN');
  });

  it('keeps a configured identity as it is', async () => {
    const { result } = await compacted({ recall: false, identity: 'You are Ada.' }, 'hard');
    expect(JSON.stringify(result.messages[0])).toContain('<identity>\\nYou are Ada.\\n</identity>');
  });

  it('knows its own id-less placeholders on the next call: the same items and texts as with ids', async () => {
    const twice = async (recall: boolean) => {
      const archive = createMemoryArchiveStore();
      const compactor = createCompactor({ archive, recall, micro: { cacheAware: false } });
      const first = await compactor.maybeCompact(session(12), { force: 'mid' });
      const second = await compactor.maybeCompact(first.messages, { force: 'mid' });
      return { first, second, items: await archive.list(compactor.sessionId) };
    };
    const withIds = await twice(true);
    const without = await twice(false);
    expect(without.second.archived.length).toBeGreaterThan(0);
    expect([without.first.archived, without.second.archived]).toEqual([
      withIds.first.archived,
      withIds.second.archived,
    ]);
    const idsOut = (messages: readonly Message[]) =>
      JSON.stringify(messages).replace(/; recall r\d+\]/g, ']');
    expect(JSON.stringify(without.second.messages)).toBe(idsOut(withIds.second.messages));
    // A placeholder is never archived as if it were an original.
    expect(without.items.some((item) => JSON.stringify(item.block ?? '').includes('[Previous: used '))).toBe(
      false,
    );
  });

  it.each([['no'], [1], [null]])('rejects recall: %j with INVALID_OPTIONS at its path', (value) => {
    const create = () => createCompactor({ recall: value as unknown as boolean });
    expect(create).toThrow(CompactError);
    expect(create).toThrow(/^recall: must be true or false/);
  });
});
