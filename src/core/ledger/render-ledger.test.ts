import { describe, expect, it } from 'vitest';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { claudeCodeSession } from './__fixtures__/claude-code-session.js';
import { createLedgerState, type LedgerState } from './ledger-state.js';
import { LedgerRecorder } from './record-messages.js';
import { renderLedger } from './render-ledger.js';

const counter = createHeuristicCounter();

function recorded(): LedgerState {
  const recorder = new LedgerRecorder();
  recorder.sync(claudeCodeSession());
  return recorder.state;
}

describe('renderLedger', () => {
  it('renders every kind of fact in a labelled block', () => {
    const text = renderLedger(recorded(), {
      maxTokens: 2000,
      counter,
      recallOf: (id) => (id === 't5' ? 'r7' : undefined),
    });
    expect(text).toMatchInlineSnapshot(`
      "<session_ledger>
      Recorded by the compactor, not the summarizer (tN = assistant turn N, rN = recall id).
      ## Plan in force (TodoWrite, t6, verbatim)
      - [completed] Reproduce the parser failure
      - [completed] Fix parseHeader off-by-one
      - [in_progress] Run the whole suite
      ## Messages the user typed (verbatim)
      - t1: Fix the failing parser test in src/parser.ts, and do not touch the CLI.
      - t6: Also keep the public API unchanged please.
      - t9: Great, now write a changelog entry.
      ## Files changed (under /repo/src/)
      - parser.ts
      ## Files read (same root)
      - lexer.ts r7
      ## Commands (exit status: first error line)
      - npm test -- parser → Exit code 1 — FAIL src/parser.test.ts
      - npm test
      </session_ledger>"
    `);
  });

  it('drops the oldest successful commands first and keeps the plan and failures', () => {
    const state = recorded();
    for (let index = 0; index < 200; index++) {
      state.commands.unshift({
        command: `ls dir${index}`,
        turn: 1,
        toolUseId: `x${index}`,
        failed: false,
        runs: 1,
      });
    }
    const text = renderLedger(state, { maxTokens: 300, counter, historyId: 'r1' })!;
    expect(counter.countText(text)).toBeLessThanOrEqual(300);
    expect(text).toContain('[in_progress] Run the whole suite');
    expect(text).toContain('npm test -- parser → Exit code 1');
    expect(text).toContain('- npm test\n');
    expect(text).toMatch(/\(\d+ earlier not shown; recall r1\)/);
    expect(text).not.toMatch(/ls dir199\b/);
  });

  it('keeps the latest commands, the ones an agent runs again, over older failures', () => {
    const state = createLedgerState();
    const run = (command: string, failed: boolean) =>
      state.commands.push({ command, turn: state.commands.length + 1, toolUseId: command, failed, runs: 1 });
    for (let index = 0; index < 60; index++) run(`git add file${index}.go → ignored by .gitignore`, true);
    run('git status --short', false);
    run('go test ./internal/syncer', false);
    const text = renderLedger(state, { maxTokens: 250, counter, historyId: 'r1' })!;
    expect(text).toContain('- git status --short\n');
    expect(text).toContain('- go test ./internal/syncer\n');
    expect(text).not.toContain('git add file0.go');
  });

  it('with recall: false names no archive id: not on a line, not in a note, not in the header', () => {
    const state = recorded();
    // More commands than the budget holds, so some are dropped.
    for (let index = 0; index < 200; index++) {
      state.commands.unshift({
        command: `ls dir${index}`,
        turn: 1,
        toolUseId: `x${index}`,
        failed: false,
        runs: 1,
      });
    }
    const text = renderLedger(state, {
      maxTokens: 300,
      counter,
      recallOf: () => 'r7',
      historyId: 'r1',
      recall: false,
    })!;
    expect(text).toContain('Recorded by the compactor, not the summarizer (tN = assistant turn N).\n');
    expect(text).toMatch(/\(\d+ earlier not shown\)/);
    expect(text).toContain('- lexer.ts\n');
    expect(text).not.toMatch(/\br\d+\b|recall/);
  });

  it('is undefined for an empty ledger', () => {
    expect(renderLedger(createLedgerState(), { maxTokens: 100, counter })).toBeUndefined();
  });

  it('keeps a typed message whole, and plans and skills whole on their own budget, newest first', async () => {
    const state = createLedgerState();
    const typed = `Please refactor the parser. ${'Keep every public name as it is. '.repeat(30)}`;
    const skill = (name: string, repeat: number) =>
      `Base directory for this skill: /skills/${name}\n# ${name}\n${`Follow ${name}. `.repeat(repeat)}`;
    const plan = `Implement the following plan:\n# Plan: rename\n${'Rename the field. '.repeat(40)}`;
    state.userMessages.push(
      { turn: 1, text: typed },
      { turn: 2, text: skill('huge', 2000) },
      { turn: 3, text: skill('brainstorming', 60) },
      { turn: 4, text: plan },
      { turn: 5, text: skill('brainstorming', 60) },
    );
    const text = renderLedger(state, { maxTokens: 600, counter })!;
    expect(text).toContain(typed.trim());
    expect(text).toContain(plan.trim());
    // The newest load of a skill whole, an earlier load of the same text and one over the budget by
    // their first line.
    expect(text.split('Follow brainstorming. '.repeat(60).trim()).length).toBe(2);
    expect(text).toContain('- t3: Base directory for this skill: /skills/brainstorming # brainstorming');
    expect(text).toContain('- t2: Base directory for this skill: /skills/huge # huge Follow huge.');
    expect(text).not.toContain('Follow huge. '.repeat(40));
  });

  it('keeps a long task whole before newer instructions, and its head and tail when it alone is over', () => {
    const issue = `<pr_description>\nTIME_ZONE in DATABASES is ignored. ${'The dates come back shifted. '.repeat(80)}\n</pr_description>`;
    const submit = 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached';
    const task = `${issue}\n<instructions>\n${'Work in small steps. '.repeat(40)}\n## Submission\n${submit}\n</instructions>`;
    const plan = `Implement the following plan:\n# Plan: fix\n${'Use the database zone. '.repeat(30)}`;
    const state = createLedgerState();
    state.userMessages.push(
      { turn: 1, text: task },
      { turn: 2, text: 'Now run the tests.' },
      { turn: 3, text: plan },
    );
    const roomy = renderLedger(state, { maxTokens: counter.countText(task) + 50, counter })!;
    expect(roomy).toContain(task.trim());
    // The task took the budget first: the plan is named by its first line.
    expect(roomy).not.toContain(plan.trim());
    const tight = renderLedger(state, { maxTokens: 300, counter })!;
    expect(tight).toContain('TIME_ZONE in DATABASES is ignored.');
    expect(tight).toContain(submit);
    expect(tight).toMatch(/\[… \d+ characters of the task not shown …\]/);
    expect(counter.countText(tight)).toBeLessThan(counter.countText(task));
  });

  it('lists files one line per directory and merges commands that read the same', () => {
    const state = createLedgerState();
    const file = (path: string, changed: boolean, action = changed ? 'edit' : 'read') => ({
      path,
      action,
      changed,
      turn: 1,
      toolUseId: path,
    });
    state.files.push(
      file('/repo/src/a/one.ts', true),
      file('/repo/src/a/two.ts', true, 'write'),
      file('/repo/src/b/three.ts', false),
      file('/repo/src/a/four.ts', false),
      file('/repo/src/top.ts', false),
    );
    const long = 'grep -rn "somethingQuiteLong" /repo/src/a/very/deep/directory/with/files';
    state.commands.push(
      { command: `${long}/one.ts`, turn: 1, toolUseId: 'c1', failed: false, runs: 1 },
      { command: 'npm test', turn: 2, toolUseId: 'c2', failed: false, runs: 1, exitCode: 0 },
      { command: `${long}/two.ts`, turn: 3, toolUseId: 'c3', failed: false, runs: 2 },
    );
    const text = renderLedger(state, { maxTokens: 2000, counter })!;
    expect(text).toContain('## Files changed (under /repo/src/)\n- a/ one.ts, two.ts (write)\n');
    expect(text).toContain('## Files read (same root)\n- b/ three.ts\n- a/ four.ts\n- top.ts\n');
    // Commands go out whole (up to 300 characters), so these two stay apart; identical runs merge.
    expect(text).toContain(`- ${long}/one.ts\n- npm test\n- ${long}/two.ts ×2\n`);
  });

  it('names the root of the files it lists when the working set shows every file changed', () => {
    const state = createLedgerState();
    const file = (path: string, changed: boolean) => ({
      path,
      action: changed ? 'edit' : 'read',
      changed,
      turn: 1,
      toolUseId: path,
    });
    state.files.push(
      file('/repo/cmd/cli/hooks.go', true),
      file('/home/me/notes/review.txt', false),
      file('/home/me/notes/plan.txt', false),
    );
    const filesShown = new Set(['/repo/cmd/cli/hooks.go']);
    const text = renderLedger(state, { maxTokens: 2000, counter, filesShown })!;
    expect(text).not.toContain('## Files changed');
    // "Same root" named a root no line stated, and the root was the working set's files' too.
    expect(text).toContain('## Files read (under /home/me/notes/)\n- review.txt, plan.txt\n');
  });

  it('names the latest request instead of repeating it when the context shows it after the ledger', () => {
    const state = createLedgerState();
    const latest = 'Now fix the lexer too, and keep the tests green.';
    state.userMessages.push({ turn: 1, text: 'Fix the parser.' }, { turn: 4, text: latest });
    const text = renderLedger(state, { maxTokens: 500, counter, shownAfter: new Set([latest]) })!;
    expect(text).toContain('- t1: Fix the parser.');
    expect(text).toContain('- t4: (the latest request, repeated verbatim below)');
    expect(text).not.toContain(latest);
  });

  it('counts the lines it shows, not every file a long session read', () => {
    const state = createLedgerState();
    state.files = Array.from({ length: 3000 }, (_, index) => ({
      path: `/repo/src/module_${index % 97}/file_${index}.ts`,
      action: 'read',
      changed: false,
      turn: index + 1,
      toolUseId: `toolu_${index}`,
    }));
    const texts: string[] = [];
    const counting = {
      ...counter,
      countText: (text: string) => {
        texts.push(text);
        return counter.countText(text);
      },
    };
    const text = renderLedger(state, { maxTokens: 600, counter: counting }) ?? '';
    expect(text).toMatch(/\(\d+ earlier not shown\)/);
    expect(text).toContain('file_2999.ts');
    expect(counter.countText(text)).toBeLessThanOrEqual(600);
    // The files it shows, the directories and titles, and the check of the text: not 3,000 lines.
    expect(texts.length).toBeLessThan(600);
  });
});
