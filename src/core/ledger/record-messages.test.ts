import { describe, expect, it } from 'vitest';
import type { Message } from '../conversation/types.js';
import { claudeCodeSession } from './__fixtures__/claude-code-session.js';
import { LedgerRecorder } from './record-messages.js';

describe('LedgerRecorder', () => {
  it('records files, commands with exit status and error line, the plan and the user messages', () => {
    const recorder = new LedgerRecorder();
    recorder.sync(claudeCodeSession());
    const { state } = recorder;
    expect(state.plan?.items).toEqual([
      '[completed] Reproduce the parser failure',
      '[completed] Fix parseHeader off-by-one',
      '[in_progress] Run the whole suite',
    ]);
    expect(state.files.map((file) => [file.path, file.action, file.changed])).toEqual([
      ['/repo/src/parser.ts', 'edit', true],
      ['/repo/src/lexer.ts', 'read', false],
    ]);
    expect(state.commands).toMatchObject([
      {
        command: 'npm test -- parser',
        failed: true,
        exitCode: 1,
        errorLine: 'Exit code 1 — FAIL src/parser.test.ts',
      },
      { command: 'npm test', failed: false },
    ]);
    expect(state.userMessages.map((message) => message.text)).toEqual([
      'Fix the failing parser test in src/parser.ts, and do not touch the CLI.',
      'Also keep the public API unchanged please.',
      'Great, now write a changelog entry.',
    ]);
    expect(state.open).toEqual({});
  });

  it('reads only what was appended, and a history read again adds nothing twice', () => {
    const session = claudeCodeSession();
    const recorder = new LedgerRecorder();
    recorder.sync(session.slice(0, 7));
    const turn = recorder.state.turn;
    recorder.sync(session.slice(0, 7));
    expect(recorder.state.turn).toBe(turn);
    // A copy of the same history (not the same objects) is read again: nothing counted twice.
    recorder.sync(structuredClone(session));
    expect(recorder.state.commands).toHaveLength(2);
    expect(recorder.state.userMessages).toHaveLength(3);
  });

  it.each([
    [
      'Codex exec_command with a cmd array and a JSON exit code',
      { name: 'shell', input: { command: ['bash', '-lc', 'cargo test'] } },
      '{"output":"error[E0425]: cannot find value","metadata":{"exit_code":101}}',
      { commands: [{ command: 'cargo test', exitCode: 101, failed: true }] },
    ],
    [
      'apply_patch',
      {
        name: 'apply_patch',
        input: { input: '*** Begin Patch\n*** Update File: src/a.rs\n@@\n*** End Patch' },
      },
      'Done',
      { files: [{ path: 'src/a.rs', action: 'patch', changed: true }] },
    ],
    [
      'update_plan',
      { name: 'update_plan', input: { plan: [{ step: 'Write tests', status: 'pending' }] } },
      'Plan updated',
      { plan: { tool: 'update_plan', items: ['[pending] Write tests'] } },
    ],
    [
      'the text editor tool viewing a file',
      { name: 'str_replace_based_edit_tool', input: { command: 'view', path: 'lib/x.py' } },
      'content',
      { files: [{ path: 'lib/x.py', action: 'read', changed: false }] },
    ],
  ])('recognises %s', (_name, call, output, expected) => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', ...call }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: output }] },
    ];
    const recorder = new LedgerRecorder();
    recorder.sync(messages);
    expect(recorder.state).toMatchObject(expected);
  });
});
