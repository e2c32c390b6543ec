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
      - parser.ts edit
      ## Files read (same root)
      - lexer.ts r7
      ## Commands (exit status: first error line)
      - npm test -- parser → exit 1: Exit code 1 — FAIL src/parser.test.ts
      - npm test
      </session_ledger>"
    `);
  });

  it('drops the oldest successful commands first and keeps the plan and failures', () => {
    const state = recorded();
    for (let index = 0; index < 50; index++) {
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
    expect(text).toContain('npm test -- parser → exit 1');
    expect(text).toContain('- npm test\n');
    expect(text).toMatch(/\(\d+ earlier not shown; recall r1\)/);
    expect(text).not.toMatch(/ls dir49\b/);
  });

  it('is undefined for an empty ledger', () => {
    expect(renderLedger(createLedgerState(), { maxTokens: 100, counter })).toBeUndefined();
  });

  it('keeps a typed message whole and a loaded skill by its first line', () => {
    const state = createLedgerState();
    const typed = `Please refactor the parser. ${'Keep every public name as it is. '.repeat(30)}`;
    const skill = `Base directory for this skill: /skills/writing-plans # Writing Plans ${'Write the plan. '.repeat(100)}`;
    state.userMessages.push({ turn: 1, text: typed }, { turn: 2, text: skill });
    const text = renderLedger(state, { maxTokens: 5000, counter })!;
    expect(text).toContain(typed.trim());
    expect(text).toContain('- t2: Base directory for this skill: /skills/writing-plans');
    expect(text).not.toContain('Write the plan. '.repeat(10));
  });
});
