import { describe, expect, it } from 'vitest';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { claudeCodeSession } from './__fixtures__/claude-code-session.js';
import { filesBack } from './files-back.js';
import { LedgerRecorder } from './record-messages.js';

const counter = createHeuristicCounter();

describe('filesBack', () => {
  const session = claudeCodeSession();
  const recorder = new LedgerRecorder();
  recorder.sync(session);
  const files = recorder.state.files;

  it('puts back the latest read content, not a file whose latest touch was a partial edit', () => {
    const blocks = filesBack(files, session, [], { maxFiles: 5, maxTokens: 10_000 }, counter);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatch(/^<file path="\/repo\/src\/lexer.ts" as-of="t5">\nexport const lexer = 1;/);
  });

  it('respects the budget and the file count', () => {
    expect(filesBack(files, session, [], { maxFiles: 5, maxTokens: 50 }, counter)).toEqual([]);
    expect(filesBack(files, session, [], { maxFiles: 0, maxTokens: 10_000 }, counter)).toEqual([]);
  });

  it('skips a file the kept turn already shows', () => {
    expect(
      filesBack(files, session, session.slice(9, 11), { maxFiles: 5, maxTokens: 10_000 }, counter),
    ).toEqual([]);
  });
});
