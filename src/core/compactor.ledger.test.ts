import { describe, expect, it } from 'vitest';
import { toolResultText } from './_internal/text.js';
import { handleRecall } from './archive/compaction-tools.js';
import { createMemoryArchiveStore } from './archive/memory-archive-store.js';
import { rebuildConversation } from './archive/rebuild.js';
import { createCompactor } from './compactor.js';
import { agentSession } from './conversation/session-builder.test-utils.js';
import { validateMessages } from './conversation/validate.js';
import { claudeCodeSession } from './ledger/__fixtures__/claude-code-session.js';
import type { ContentBlock, Message, ToolResultBlock } from './model/messages.js';
import type { SummaryModel, SummaryRequest } from './summary/summary-model.js';
import { createHeuristicCounter } from './tokens/heuristic-counter.js';

const text = (messages: readonly Message[]) => JSON.stringify(messages);

describe('the session ledger through maybeCompact', () => {
  it('a forced hard compaction keeps the todo list, the commands and the error lines', async () => {
    const result = await createCompactor().maybeCompact(claudeCodeSession(), { force: 'hard' });
    expect(result.layer).toBe('hard');
    const [head, ...filesBack] = (result.messages[0]!.content as { text: string }[]).map(
      (block) => block.text,
    );
    expect(head).toMatch(/<\/context_summary>\n\n<session_ledger>\n/);
    for (const fact of [
      '[in_progress] Run the whole suite',
      '[completed] Fix parseHeader off-by-one',
      'npm test -- parser → Exit code 1 — FAIL src/parser.test.ts',
      '- npm test\n',
      'Also keep the public API unchanged please.',
    ])
      expect(head).toContain(fact);
    // The file it edited goes back whole after the head; the working set keeps its changed
    // definitions, and the ledger does not list it again.
    expect(filesBack[0]).toMatch(
      /^<file path="\/repo\/src\/parser\.ts" as-of="t4">\nexport function pbrseHeader/,
    );
    expect(head).toContain('## parser.ts (edited t4)');
    expect(head).not.toMatch(/Files changed[^#]*parser\.ts/);
    expect(validateMessages(result.messages)).toEqual([]);
  });

  it('survives a second hard compaction and is given to a model summarizer as ground truth', async () => {
    const requests: SummaryRequest[] = [];
    const summarizer: SummaryModel = {
      specificationVersion: 'v1',
      provider: 'test',
      modelId: 'scripted',
      async summarize(request) {
        requests.push(request);
        return { text: '## Current state\n- narrative' };
      },
    };
    const compactor = createCompactor({ summarizer });
    const first = await compactor.maybeCompact(claudeCodeSession(), { force: 'hard' });
    const next: Message[] = [
      ...first.messages,
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'n1', name: 'Bash', input: { command: 'git diff' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'n1', content: 'diff --git a/x b/x' }] },
      { role: 'assistant', content: 'Writing the changelog.' },
      { role: 'user', content: 'Thanks, commit it.' },
    ];
    const second = await compactor.maybeCompact(next, { force: 'hard' });
    const head = text(second.messages.slice(0, 1));
    // Facts from before the first compaction are still there, beside the new ones.
    expect(head).toContain('npm test -- parser → Exit code 1');
    expect(head).toContain('[in_progress] Run the whole suite');
    expect(head).toContain('git diff');
    expect(head).toContain('- narrative');
    // The latest request follows the summary verbatim: the ledger names it instead of repeating it.
    expect(head).toContain('(the latest request, repeated verbatim below)');
    expect(text(second.messages).split('Thanks, commit it.').length).toBe(2);
    const last = requests[requests.length - 1]!;
    expect(last.ledger).toContain('git diff');
    const instructions = text(last.messages.slice(-1));
    expect(instructions).toContain('ground truth');
    // New facts go out in the instructions; those the earlier summary in the history shows as they
    // are, the model reads there (and from the cache), and the instructions count them.
    expect(instructions).toContain('- git diff');
    expect(instructions).not.toContain('npm test -- parser');
    expect(instructions).toContain('[2 lines as in the earlier summary above]');
    expect(text(last.messages.slice(0, 1))).toContain('npm test -- parser → Exit code 1');
    // The first summary had no earlier one: its instructions carried every fact.
    expect(text(requests[0]!.messages.slice(-1))).toContain('npm test -- parser');
  });

  it('ledgerTokens: 0 turns it off', async () => {
    const result = await createCompactor({ hard: { ledgerTokens: 0 } }).maybeCompact(claudeCodeSession(), {
      force: 'hard',
    });
    expect(text(result.messages)).not.toContain('<session_ledger>');
  });

  it('puts the files back after the summary: the edited one in its text after the edit, then the read one', async () => {
    const result = await createCompactor({ hard: { filesBack: { maxFiles: 5 } } }).maybeCompact(
      claudeCodeSession(),
      { force: 'hard' },
    );
    const blocks = result.messages[0]!.content as { text: string }[];
    expect(blocks[1]?.text).toMatch(
      /^<file path="\/repo\/src\/parser.ts" as-of="t4">\nexport function pbrseHeader\(\) \{\}\nparser line 0\n/,
    );
    expect(blocks[2]?.text).toMatch(
      /^<file path="\/repo\/src\/lexer.ts" as-of="t5">\nexport const lexer = 1;/,
    );
    const off = await createCompactor({ hard: { filesBack: { maxFiles: 0 } } }).maybeCompact(
      claudeCodeSession(),
      {
        force: 'hard',
      },
    );
    expect((off.messages[0]!.content as unknown[]).length).toBe(1);
  });

  it('keeps the turn whole, byte for byte, while it is within a quarter of the usable window', async () => {
    const withWrite = sessionWithWrite(400, 1500);
    const result = await createCompactor().maybeCompact(withWrite, { force: 'hard' });
    expect(result.layer).toBe('hard');
    expect(JSON.stringify(result.messages.slice(-2))).toBe(JSON.stringify(withWrite.slice(-2)));
  });

  it('cuts a turn over a quarter of the usable window to head and tail and elides its large input, all recallable', async () => {
    const withWrite = sessionWithWrite(400, 1500);
    const store = createMemoryArchiveStore();
    // 48,192 less the 8,192 reserve: the turn (about 15,000 tokens) gets 10,000, shared by its four parts.
    const compactor = createCompactor({ archive: store, contextWindow: 48_192 });
    const result = await compactor.maybeCompact(withWrite, { force: 'hard' });
    const original = toolResultText((withWrite.at(-1)!.content as ToolResultBlock[])[0]!);
    const lines = original.split('\n');
    const cut = toolResultText((result.messages.at(-1)!.content as ToolResultBlock[])[0]!);
    // The model reads how the output starts and ends, and where the whole of it is.
    expect(cut.startsWith(`${lines[0]}\n${lines[1]}`)).toBe(true);
    expect(cut).toContain(lines.at(-1));
    expect(cut).toMatch(/lines \(.* tokens\) cut here/);
    expect(createHeuristicCounter().countText(cut)).toBeLessThan(2_700);
    const id = /…shortened; .* tokens in full; recall (r\d+)\]$/.exec(cut)?.[1];
    expect(await handleRecall({ archive: store, sessionId: compactor.sessionId }, { id })).toBe(original);
    // The file it wrote is elided from its call; the small result stays.
    const keptCall = (result.messages.at(-2)!.content as ContentBlock[]).find(
      (block) => block.type === 'tool_use' && block.id === 'toolu_write',
    );
    expect(JSON.stringify(keptCall)).toMatch(/\[elided: .*recall r\d+\]/);
    expect((result.messages.at(-1)!.content as ToolResultBlock[])[1]!.content).toBe(
      'File created successfully at: a.py',
    );
    expect(rebuildConversation(result.messages, await store.list(compactor.sessionId))).toEqual(withWrite);
    const whole = await createCompactor({
      contextWindow: 48_192,
      hard: { keptTurnTokens: Number.POSITIVE_INFINITY },
    }).maybeCompact(withWrite, { force: 'hard' });
    expect(whole.messages.slice(-2)).toEqual(withWrite.slice(-2));
  });
});

/** An agent session whose last turn reads a file of `lines` lines and writes one of `written` lines. */
function sessionWithWrite(lines: number, written: number): Message[] {
  const messages = agentSession(30, { lines });
  const last = messages.at(-2)!;
  const call = {
    type: 'tool_use',
    id: 'toolu_write',
    name: 'Write',
    input: { file_path: 'a.py', content: 'x = 1\n'.repeat(written) },
  };
  return [
    ...messages.slice(0, -1),
    { ...last, content: [...(last.content as ContentBlock[]), call as ContentBlock] },
    {
      role: 'user',
      content: [
        ...(messages.at(-1)!.content as ContentBlock[]),
        { type: 'tool_result', tool_use_id: 'toolu_write', content: 'File created successfully at: a.py' },
      ],
    },
  ];
}
