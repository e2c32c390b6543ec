import { describe, expect, it } from 'vitest';
import { failureLine } from '../_internal/placeholder.js';
import type { Message } from '../model/messages.js';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { readCodexExecOutput } from './codex-exec-output.js';
import { LedgerRecorder } from './record-messages.js';
import { renderLedger } from './render-ledger.js';

/** A unified exec result as Codex CLI writes it. */
const unified = (command: string, status: string, output: string) =>
  `Command: /bin/zsh -lc '${command}'\nChunk ID: 1a2b3c\nWall time: 0.5 seconds\n${status}\nOriginal token count: 12\nOutput:\n${output}`;

const call = (id: string, name: string, input: unknown): Message => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id, name, input }],
});
const result = (id: string, content: string): Message => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content }],
});

describe('readCodexExecOutput', () => {
  it.each([
    [
      'unified exec, ended',
      unified('go test ./...', 'Process exited with code 1', 'ok  \tpkg/a\n--- FAIL: TestB (0.00s)\n'),
      { output: 'ok  \tpkg/a\n--- FAIL: TestB (0.00s)\n', exitCode: 1 },
    ],
    [
      'unified exec, still running',
      unified('npm run dev', 'Process running with session ID 22217', ''),
      { output: '', sessionId: '22217' },
    ],
    [
      'unified exec, output cut',
      unified('rg -n x', 'Process exited with code 0', 'Total output lines: 1478\n\na.go:1:x\n'),
      { output: 'a.go:1:x\n', exitCode: 0, truncated: true },
    ],
    [
      'unified exec, output cut with a warning',
      unified(
        'rg -n x',
        'Process exited with code 0',
        'Warning: truncated output (original token count: 90)\nTotal output lines: 9\n\na\n…80 tokens truncated…z\n',
      ),
      { output: 'a\n…80 tokens truncated…z\n', exitCode: 0, truncated: true },
    ],
    [
      'freeform shell, output cut',
      'Exit code: 0\nWall time: 0.1 seconds\nTotal output lines: 900\nOutput:\nx\n…812 tokens truncated…\ny\n',
      { output: 'x\n…812 tokens truncated…\ny\n', exitCode: 0, truncated: true },
    ],
    [
      'freeform shell',
      'Exit code: 2\nWall time: 0.1 seconds\nOutput:\nmake: *** [all] Error 2',
      { output: 'make: *** [all] Error 2', exitCode: 2 },
    ],
    [
      'JSON shell',
      '{"output":"error[E0425]: cannot find value","metadata":{"exit_code":101,"duration_seconds":0.2}}',
      { output: 'error[E0425]: cannot find value', exitCode: 101 },
    ],
    ['another tool’s text', 'Exit code 1\nboom', undefined],
  ])('reads %s', (_name, text, expected) => {
    expect(readCodexExecOutput(text)).toEqual(expected);
  });
});

describe('failureLine (what the ledger quotes of a failed Codex command)', () => {
  it.each([
    ['go: downloading x v1\n--- FAIL: TestB (0.00s)\n    b_test.go:9: want 1', '--- FAIL: TestB (0.00s)'],
    ['Traceback (most recent call last):\n  File "x.py"\nValueError: bad', 'ValueError: bad'],
    ['\nhint: use -f\n', 'hint: use -f'],
    ['', undefined],
  ])('of %j is %j', (output, expected) => {
    expect(failureLine(output)).toBe(expected);
  });
});

describe('LedgerRecorder with Codex shell calls', () => {
  it('quotes what a failed exec_command printed, not the header that repeats its command', () => {
    const recorder = new LedgerRecorder();
    recorder.sync([
      { role: 'user', content: 'run the tests' },
      call('c1', 'exec_command', { cmd: 'go test ./...', workdir: '/repo' }),
      result(
        'c1',
        unified('go test ./...', 'Process exited with code 1', 'ok  \tpkg/a\n--- FAIL: TestB (0.00s)\n'),
      ),
      call('c2', 'exec_command', { cmd: "rg -n 'nothing here'" }),
      result('c2', unified("rg -n 'nothing here'", 'Process exited with code 1', '')),
    ]);
    expect(recorder.state.commands).toEqual([
      expect.objectContaining({
        command: 'go test ./...',
        exitCode: 1,
        failed: true,
        errorLine: '--- FAIL: TestB (0.00s)',
      }),
      expect.objectContaining({ command: "rg -n 'nothing here'", exitCode: 1, failed: true }),
    ]);
    expect(recorder.state.commands[1]!.errorLine).toBeUndefined();
    const ledger = renderLedger(recorder.state, { maxTokens: 2600, counter: createHeuristicCounter() });
    expect(ledger).not.toContain('Command: /bin/zsh');
  });

  it("leaves out Codex's notes in the user's turn: AGENTS.md instructions, an approved command prefix", () => {
    const recorder = new LedgerRecorder();
    recorder.sync([
      {
        role: 'user',
        content: '# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>',
      },
      { role: 'user', content: 'add a --dry-run flag' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Approved command prefix saved:\n- ["git", "commit"]' },
    ]);
    expect(recorder.state.userMessages.map((message) => message.text)).toEqual(['add a --dry-run flag']);
  });

  it('ends a command still running when write_stdin polls its session, instead of a failed write_stdin', () => {
    const recorder = new LedgerRecorder();
    recorder.sync([
      { role: 'user', content: 'run the integration tests' },
      call('c1', 'exec_command', { cmd: 'go test ./internal/syncer -run Integration' }),
      result(
        'c1',
        unified('go test ./internal/syncer -run Integration', 'Process running with session ID 7', ''),
      ),
      call('c2', 'write_stdin', { session_id: 7, chars: '' }),
      result(
        'c2',
        unified(
          'go test ./internal/syncer -run Integration',
          'Process running with session ID 7',
          '=== RUN TestA\n',
        ),
      ),
      call('c3', 'write_stdin', { session_id: 7, chars: '' }),
      result(
        'c3',
        unified(
          'go test ./internal/syncer -run Integration',
          'Process exited with code 1',
          '--- FAIL: TestA (3.1s)\nFAIL\n',
        ),
      ),
    ]);
    expect(recorder.state.commands).toEqual([
      expect.objectContaining({
        command: 'go test ./internal/syncer -run Integration',
        exitCode: 1,
        failed: true,
        errorLine: '--- FAIL: TestA (3.1s)',
        toolUseId: 'c3',
        runs: 1,
      }),
    ]);
    expect(recorder.state.errors).toEqual([]);
    expect(recorder.state.open).toEqual({});
  });
});
