import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { call, record } from '../working-set/__fixtures__/tool-calls.js';
import { claudeCodeSession } from './__fixtures__/claude-code-session.js';
import { LedgerRecorder } from './record-messages.js';
import { renderLedger } from './render-ledger.js';

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

  it.each([
    [
      'apply_patch `*** Move to:`',
      {
        name: 'apply_patch',
        input: {
          input:
            '*** Begin Patch\n*** Update File: src/old.ts\n*** Move to: src/new.ts\n@@\n-a\n+b\n*** Update File: src/c.ts\n@@\n-x\n+y\n*** End Patch',
        },
      },
      [
        ['src/new.ts', 'patch', true],
        ['src/c.ts', 'patch', true],
      ],
    ],
    [
      'git mv',
      { name: 'bash', input: { command: 'git mv src/old.ts src/new.ts' } },
      [['src/new.ts', 'edit', true]],
    ],
    [
      'mv',
      { name: 'bash', input: { command: 'mv -f src/old.ts src/new.ts' } },
      [['src/new.ts', 'edit', true]],
    ],
  ])('lists a file renamed by %s under its new name only', (_name, call, files) => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c0', name: 'edit', input: { file_path: 'src/old.ts' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c0', content: 'ok' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', ...call }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'Done' }] },
    ];
    const recorder = new LedgerRecorder();
    recorder.sync(messages);
    expect(recorder.state.files.map((file) => [file.path, file.action, file.changed])).toEqual(files);
  });

  it('renames a file listed by its absolute path when mv names it relative to the folder it ran in', () => {
    const recorder = new LedgerRecorder();
    recorder.sync([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c0', name: 'read', input: { file_path: '/repo/src/a.ts' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c0', content: 'x' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c1', name: 'bash', input: { command: 'mv src/a.ts lib/' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: '' }] },
    ] satisfies Message[]);
    expect(recorder.state.files.map((file) => [file.path, file.action])).toEqual([
      ['/repo/lib/a.ts', 'read'],
    ]);
  });

  it('keeps the old name of a file a failed mv did not move', () => {
    const recorder = new LedgerRecorder();
    recorder.sync([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c0', name: 'read', input: { file_path: 'a.ts' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c0', content: 'x' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c1', name: 'bash', input: { command: 'mv a.ts b.ts' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: "mv: cannot stat 'a.ts'", is_error: true },
        ],
      },
    ] satisfies Message[]);
    expect(recorder.state.files.map((file) => file.path)).toEqual(['a.ts']);
  });

  it('leaves out harness markup and reminders (not words the user typed), not a task in its own tag nor a slash command', () => {
    const recorder = new LedgerRecorder();
    recorder.sync([
      { role: 'user', content: '<pr_description>\nDates ignore TIME_ZONE.\n</pr_description>' },
      { role: 'assistant', content: 'Looking.' },
      { role: 'user', content: '<command-name>/compact</command-name>' },
      { role: 'assistant', content: 'Compacted.' },
      {
        role: 'user',
        content:
          '<command-message>superpowers:brainstorm</command-message>\n<command-name>/superpowers:brainstorm</command-name>\n<command-args>ENT-221 state machine</command-args>',
      },
      { role: 'assistant', content: 'Compacted.' },
      {
        role: 'user',
        content: 'Caveat: The messages below were generated by the user while running local commands.',
      },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: '<system-reminder>Be careful.</system-reminder>' },
      { role: 'assistant', content: 'Sure.' },
      { role: 'user', content: 'Now run the linter.' },
    ] satisfies Message[]);
    // A task that opens with its own tag (mini-swe-agent's) is the user's.
    expect(recorder.state.userMessages.map((message) => message.text)).toEqual([
      '<pr_description>\nDates ignore TIME_ZONE.\n</pr_description>',
      '/superpowers:brainstorm ENT-221 state machine',
      'Now run the linter.',
    ]);
  });

  it('names a failed read by the end of its path, and lists every call that failed the same way', () => {
    const read = (id: string, path: string): Message[] => [
      { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: path } }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            is_error: true,
            content: 'The result of this tool call is missing from the conversation.',
          },
        ],
      },
    ];
    const deep = '/Users/someone/Work/project/devenv/cli/cmd/entire/cli/strategy';
    const recorder = new LedgerRecorder();
    recorder.sync([...read('a', `${deep}/cleanup.go`), ...read('b', `${deep}/session.go`)]);
    expect(recorder.state.errors).toEqual([
      {
        call: 'Read(…t/devenv/cli/cmd/entire/cli/strategy/session.go)',
        others: ['Read(…t/devenv/cli/cmd/entire/cli/strategy/cleanup.go)'],
        turn: 2,
        line: 'The result of this tool call is missing from the conversation.',
      },
    ]);
  });

  /** The commands a ledger records of one Bash call and its output. */
  function bashCommands(command: string, output: string, isError = false) {
    const recorder = new LedgerRecorder();
    recorder.sync([
      { role: 'user', content: 'go on' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { command } }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'c1', content: output, is_error: isError }],
      },
    ]);
    return recorder.state.commands;
  }

  it.each([
    [
      'a script that opens with comments, by the line it runs',
      '\n# Reply to the naming comment\n  # twice\ngh api repos/o/r/pulls/1/replies -f body=x',
      'gh api repos/o/r/pulls/1/replies -f body=x',
    ],
    [
      'a command continued with trailing backslashes, whole so it can be run again',
      'git add cmd/a.go \\\n  cmd/b.go \\\n  cmd/c.go\ngit status --short',
      'git add cmd/a.go cmd/b.go cmd/c.go',
    ],
  ])('records %s', (_name, command, recorded) => {
    expect(bashCommands(command, 'ok').map((entry) => entry.command)).toEqual([recorded]);
  });

  it('names a failed go build by its first diagnostic, not by the `# package` line before it', () => {
    const output = 'Exit code 1\n# example.com/app/e2e\ne2e/env.go:42:26: undefined: defaultAgent';
    expect(bashCommands('go build ./e2e/...', output, true)[0]?.errorLine).toBe(
      'Exit code 1 — e2e/env.go:42:26: undefined: defaultAgent',
    );
  });
});

describe('files a shell command changes', () => {
  const files = (messages: Message[]) =>
    record(messages).state.files.map((file) => [file.path, file.action, file.changed]);
  const edit = call('Edit', { file_path: '/repo/a.py', old_string: 'a', new_string: 'b' }, 'updated');
  const bash = (command: string, isError = false) =>
    call('Bash', { command }, isError ? 'Exit code 1' : '', isError);

  it('lists a file an `rm` that ran removed as deleted, not as a file holding its changes', () => {
    expect(files([...edit, ...bash('rm a.py')])).toEqual([['/repo/a.py', 'delete', true]]);
    expect(files([...edit, ...bash('rm a.py', true)])).toEqual([['/repo/a.py', 'edit', true]]);
    const removed = record([...edit, ...bash('rm -f a.py')]).state;
    expect(renderLedger(removed, { maxTokens: 400, counter: createHeuristicCounter() })).toContain(
      'a.py (delete)',
    );
  });

  it("lists a file a patch's `*** Delete File:` removed as deleted", () => {
    const patch = call(
      'apply_patch',
      { input: '*** Begin Patch\n*** Delete File: a.py\n*** End Patch' },
      'Done',
    );
    expect(files(patch)).toEqual([['a.py', 'delete', true]]);
    const rewrite = call(
      'apply_patch',
      { input: '*** Begin Patch\n*** Delete File: a.py\n*** Add File: a.py\n+x = 2\n*** End Patch' },
      'Done',
    );
    // Deleted and added again in one patch: the file is there, rewritten.
    expect(files(rewrite).map(([, action]) => action)).not.toContain('delete');
  });

  it('lists a file a `sed -i` that ran edited as changed, under the name it is listed by', () => {
    const read = call('Read', { file_path: '/repo/src/b.py' }, 'x = 1');
    expect(files([...read, ...bash("sed -i 's/1/2/' src/b.py")])).toEqual([['/repo/src/b.py', 'edit', true]]);
    expect(files(bash("sed -i 's/1/2/' c.py"))).toEqual([['c.py', 'edit', true]]);
    expect(files(bash("sed -i 's/1/2/' c.py", true))).toEqual([]);
  });
});
