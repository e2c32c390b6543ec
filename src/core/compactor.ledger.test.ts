import { describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from './archive/memory-archive-store.js';
import { rebuildConversation } from './archive/rebuild.js';
import { createCompactor } from './compactor.js';
import { agentSession } from './conversation/session-builder.test-utils.js';
import type { Message } from './conversation/types.js';
import { validateMessages } from './conversation/validate.js';
import { claudeCodeSession } from './ledger/__fixtures__/claude-code-session.js';
import type { SummaryModel, SummaryRequest } from './summary/summary-model.js';

const text = (messages: readonly Message[]) => JSON.stringify(messages);

describe('the session ledger through maybeCompact', () => {
  it('a forced hard compaction keeps the todo list, the commands and the error lines', async () => {
    const result = await createCompactor().maybeCompact(claudeCodeSession(), { force: 'hard' });
    expect(result.layer).toBe('hard');
    const head = (result.messages[0]!.content as { text: string }[])[0]!.text;
    expect(head).toMatch(/<\/context_summary>\n\n<session_ledger>\n/);
    for (const fact of [
      '[in_progress] Run the whole suite',
      '[completed] Fix parseHeader off-by-one',
      'npm test -- parser → Exit code 1 — FAIL src/parser.test.ts',
      '- npm test\n',
      '## Files changed (under /repo/src/)\n- parser.ts\n',
      'Also keep the public API unchanged please.',
    ])
      expect(head).toContain(fact);
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
    expect(text(last.messages.slice(-1))).toContain('ground truth');
    expect(text(last.messages.slice(-1))).toContain('npm test -- parser');
  });

  it('ledgerTokens: 0 turns it off', async () => {
    const result = await createCompactor({ hard: { ledgerTokens: 0 } }).maybeCompact(claudeCodeSession(), {
      force: 'hard',
    });
    expect(text(result.messages)).not.toContain('<session_ledger>');
  });

  it('puts the latest content of recently read files back after the summary', async () => {
    const result = await createCompactor({ hard: { filesBack: { maxFiles: 5 } } }).maybeCompact(
      claudeCodeSession(),
      { force: 'hard' },
    );
    const blocks = result.messages[0]!.content as { text: string }[];
    expect(blocks[1]?.text).toMatch(
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

  it('keptResultTokens archives a large result of the kept turn behind a placeholder; off by default', async () => {
    const messages = agentSession(30, { lines: 400 });
    const store = createMemoryArchiveStore();
    const compactor = createCompactor({ archive: store, hard: { keptResultTokens: 1000 } });
    const result = await compactor.maybeCompact(messages, { force: 'hard' });
    expect(result.messages.at(-2)).toEqual(messages.at(-2));
    const [kept, original] = [result.messages.at(-1), messages.at(-1)].map((message) =>
      JSON.stringify(message),
    );
    expect(kept).toMatch(/\br\d+\b/);
    expect(kept!.length).toBeLessThan(original!.length / 10);
    expect(rebuildConversation(result.messages, await store.list(compactor.sessionId))).toEqual(messages);
    const byDefault = await createCompactor().maybeCompact(messages, { force: 'hard' });
    expect(byDefault.messages.at(-1)).toEqual(messages.at(-1));
  });
});
