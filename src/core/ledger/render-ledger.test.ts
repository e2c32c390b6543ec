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
      - parser.ts edit t4
      ## Files read (under /repo/src/)
      - lexer.ts t5 r7
      ## Commands (exit status: first error line)
      - t3 npm test -- parser → exit 1: Exit code 1 — FAIL src/parser.test.ts
      - t7 npm test
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
    expect(text).toContain('t7 npm test');
    expect(text).toMatch(/\(\d+ earlier not shown; recall r1\)/);
    expect(text).not.toMatch(/ls dir49\b/);
  });

  it('is undefined for an empty ledger', () => {
    expect(renderLedger(createLedgerState(), { maxTokens: 100, counter })).toBeUndefined();
  });
});
