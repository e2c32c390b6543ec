// A client that reuses one tool call id on every turn (`call_0`: OpenAI-compatible servers and
// SWE-agent's function-calling runs do): each result keeps its own archive item and placeholder.
import { describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from './archive/memory-archive-store.js';
import { rebuildConversation } from './archive/rebuild.js';
import { createCompactor } from './compactor.js';
import type { Message } from './model/messages.js';

function turn(index: number): Message[] {
  return [
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'call_0', name: 'read_file', input: { path: `f${index}.ts` } }],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_0', content: `content of file ${index} `.repeat(200) },
      ],
    },
  ];
}

/** Six turns, each sent with the compactor's previous output, as an agent loop does. */
async function run(recall: boolean) {
  const archive = createMemoryArchiveStore();
  const compactor = createCompactor({
    archive,
    sessionId: 's',
    recall,
    thresholds: { mid: 1_000_000, hard: 2_000_000 },
    micro: { cacheAware: false, keepTurns: 1, minTokens: 1, startAt: 0, keepReads: { turns: 0 } },
  });
  const original: Message[] = [{ role: 'user', content: 'Read the files.' }];
  let history: Message[] = [...original];
  for (let index = 0; index < 6; index++) {
    original.push(...turn(index));
    history = (await compactor.maybeCompact([...history, ...turn(index)])).messages;
  }
  return { original, history, items: await archive.list('s') };
}

const resultTexts = (messages: readonly Message[]) =>
  messages.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.flatMap((block) => (block.type === 'tool_result' ? [String(block.content)] : [])),
  );

describe('a tool call id reused on every turn', () => {
  it('masks every older result under a placeholder naming its own call and its own archive item', async () => {
    const { history, items } = await run(true);
    const texts = resultTexts(history);
    expect(texts.slice(0, 5)).toEqual(
      [0, 1, 2, 3, 4].map((index) =>
        expect.stringMatching(new RegExp(`read_file\\(f${index}\\.ts\\).*recall r${index + 1}\\]$`)),
      ),
    );
    expect(texts[5]).toContain('content of file 5');
    expect(items.map((item) => String((item.block as { content?: unknown }).content).slice(0, 17))).toEqual(
      [0, 1, 2, 3, 4].map((index) => `content of file ${index}`),
    );
  });

  it.each([true, false])(
    'rebuilds the whole conversation from the output and the archive (recall %s)',
    async (recall) => {
      const { original, history, items } = await run(recall);
      expect(rebuildConversation(history, items)).toEqual(original);
    },
  );
});
