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

/** A read of `path` answered under `id` with `text`. */
function read(id: string, path: string, text: string): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: { path } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
  ];
}

describe('results under a reused id that no placeholder tells apart', () => {
  const compactor = (recall: boolean, archive = createMemoryArchiveStore()) => ({
    archive,
    compactor: createCompactor({
      archive,
      sessionId: 's',
      recall,
      thresholds: { mid: 1_000_000, hard: 2_000_000 },
      micro: { cacheAware: false, keepTurns: 1, minTokens: 1, startAt: 0, keepReads: { turns: 0 } },
    }),
  });

  it('without recall, placeholders that would read the same name their archive items, and the conversation rebuilds', async () => {
    const { archive, compactor: session } = compactor(false);
    // One file read four times, its text changed between reads but not its size.
    const original: Message[] = [{ role: 'user', content: 'Watch the file.' }];
    let history: Message[] = [...original];
    for (const letter of ['a', 'b', 'c', 'd']) {
      const next = read('call_0', 'watched.ts', `${letter}${'x'.repeat(3000)}`);
      original.push(...next);
      history = (await session.maybeCompact([...history, ...next])).messages;
    }
    const texts = resultTexts(history);
    // The first is masked before the session shows two calls under one id: nothing to tell apart yet.
    expect(texts.slice(1, 3)).toEqual([
      expect.stringMatching(/; archived r\d+\]$/),
      expect.stringMatching(/; archived r\d+\]$/),
    ]);
    expect(rebuildConversation(history, await archive.list('s'))).toEqual(original);
  });

  it('an id used again after a summary dropped its first call keeps the new result too', async () => {
    const { archive, compactor: session } = compactor(true);
    const original: Message[] = [{ role: 'user', content: 'Read both.' }];
    let history: Message[] = [...original];
    const send = async (next: Message[], force?: 'hard') => {
      original.push(...next);
      history = (await session.maybeCompact([...history, ...next], force ? { force } : {})).messages;
    };
    await send(read('call_0', 'a.ts', 'a'.repeat(3000)));
    await send(read('call_1', 'b.ts', 'b'.repeat(3000)));
    await send(
      [
        { role: 'assistant', content: 'Both read.' },
        { role: 'user', content: 'Go on.' },
      ],
      'hard',
    );
    // The same id, a result of the same size: only what it holds tells it from the archived one.
    await send(read('call_0', 'c.ts', 'c'.repeat(3000)));
    await send(read('call_1', 'd.ts', 'd'.repeat(10)));
    const items = await archive.list('s');
    expect(items.filter((item) => item.kind === 'tool-result' && item.toolUseId === 'call_0')).toHaveLength(
      2,
    );
    expect(rebuildConversation(history, items)).toEqual(original);
  });
});

describe('the ledger and the working set of a session that reuses one id', () => {
  /** A call under `call_0`: a test run when `command` is given, else a read of `path`. */
  const step = (input: { command: string } | { file_path: string }, result: string): Message[] => [
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'call_0', name: 'command' in input ? 'Bash' : 'Read', input }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_0', content: result }] },
  ];
  const turns: Message[][] = [
    step({ file_path: '/repo/src/a.ts' }, '     1→export function alpha() {}'),
    step({ command: 'pytest' }, `Error: 1 failed\n${'x\n'.repeat(400)}`),
    step({ file_path: '/repo/src/b.ts' }, '     1→export function beta() {}'),
    step({ command: 'pytest' }, `3 passed\n${'y\n'.repeat(400)}`),
  ];

  it('records every call, each run of the same command too, sent with the output as an agent loop does', async () => {
    const compactor = createCompactor({ hard: { filesBack: { maxFiles: 0 } } });
    let history: Message[] = [{ role: 'user', content: 'Fix the tests.' }];
    for (const turn of turns) history = (await compactor.maybeCompact([...history, ...turn])).messages;
    const closing: Message[] = [
      { role: 'assistant', content: 'The tests pass.' },
      { role: 'user', content: 'Thanks.' },
    ];
    const result = await compactor.maybeCompact([...history, ...closing], { force: 'hard' });
    const text = (result.messages[0]!.content as { text: string }[])[0]!.text;
    // Five assistant turns; the failed run keeps its error line, the run after it is listed too.
    expect(text).toContain('- t6: (the latest request');
    expect(text).toContain('- pytest → failed: Error: 1 failed\n- pytest\n');
    expect(text).toContain('## b.ts (read t3)');
    expect(text).toContain('## a.ts (read t1)');
  });

  it('records a history sent again whole (not the output) once', async () => {
    const compactor = createCompactor({ hard: { filesBack: { maxFiles: 0 } } });
    const original: Message[] = [{ role: 'user', content: 'Fix the tests.' }, ...turns.flat()];
    const closing: Message[] = [
      { role: 'assistant', content: 'The tests pass.' },
      { role: 'user', content: 'Thanks.' },
    ];
    await compactor.maybeCompact(original, { force: 'hard' });
    const again = await compactor.maybeCompact([...original, ...closing], { force: 'hard' });
    const text = (again.messages[0]!.content as { text: string }[])[0]!.text;
    expect(text).toContain('- t6: (the latest request');
    expect(text.match(/^- pytest/gm)).toHaveLength(2);
    expect(text).toContain('## b.ts (read t3)');
  });
});
