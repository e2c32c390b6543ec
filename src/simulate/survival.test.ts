import { describe, expect, it } from 'vitest';
import type { Message } from '../core/model/messages.js';
import { measureSurvival, survivalKinds } from './survival.js';

const toolUse = (id: string, name: string, input: unknown) => ({
  type: 'tool_use' as const,
  id,
  name,
  input,
});
const toolResult = (id: string, content: string, isError = false) => ({
  type: 'tool_result' as const,
  tool_use_id: id,
  content,
  ...(isError ? { is_error: true } : {}),
});

/** A history with two of every kind of fact, and a todo list that was replaced. */
const history: Message[] = [
  { role: 'user', content: 'Please fix the flaky checkout test in the cart package' },
  {
    role: 'assistant',
    content: [
      toolUse('t1', 'Read', { file_path: '/repo/cart/cart.go' }),
      toolUse('t2', 'Read', { file_path: '/repo/cart/total.go' }),
      toolUse('t3', 'Edit', { file_path: '/repo/cart/total.go', old_string: 'a', new_string: 'b' }),
      toolUse('t4', 'Bash', {
        command:
          'go test ./cart/... -run TestCheckout -count=1 -race -v -timeout 60s -coverprofile=c.out\necho done',
      }),
      toolUse('t5', 'TodoWrite', { todos: [{ content: 'Old plan item', status: 'pending' }] }),
    ],
  },
  {
    role: 'user',
    content: [
      toolResult('t1', 'package cart'),
      toolResult('t2', 'package cart'),
      toolResult('t3', 'updated'),
      toolResult('t4', 'Exit code 1\n--- FAIL: TestCheckout (0.01s)', true),
      toolResult('t5', 'ok'),
    ],
  },
  {
    role: 'assistant',
    content: [
      toolUse('t6', 'TodoWrite', {
        todos: [
          { content: 'Fix rounding in total', status: 'in_progress' },
          { content: 'Run the race detector', status: 'pending' },
        ],
      }),
    ],
  },
  {
    role: 'user',
    content: [toolResult('t6', 'ok'), { type: 'text', text: 'also keep the API stable please' }],
  },
];

describe('measureSurvival', () => {
  it('counts every kind in the whole history as fully visible', () => {
    const survival = measureSurvival(history, { messages: history });
    expect(survival).toEqual({
      'files-edited': { visible: 1, total: 1 },
      'files-read': { visible: 2, total: 2 },
      commands: { visible: 1, total: 1 },
      'exit-codes': { visible: 1, total: 1 },
      errors: { visible: 1, total: 1 },
      todo: { visible: 2, total: 2 },
      'user-messages': { visible: 2, total: 2 },
      task: { visible: 1, total: 1 },
    });
  });

  it('counts nothing visible in an unrelated summary, and only the latest todo list', () => {
    const survival = measureSurvival(history, {
      messages: [{ role: 'user', content: 'Summary: work went on.' }],
    });
    for (const kind of survivalKinds) expect(survival[kind].visible, kind).toBe(0);
    expect(survival.todo.total).toBe(2);
  });

  it('reads a fact as visible by its rule: basename, command head, most of the words', () => {
    const summary: Message = {
      role: 'user',
      content: [
        'Edited total.go; read cart.go.',
        'Ran go test ./cart/... -run TestCheckout -count=1 -race -v -timeout 60s (exit code 1): Exit code 1',
        'Todo: Fix rounding in total; Run the race detector.',
        'The user asked: please fix the flaky checkout test in cart package.',
      ].join('\n'),
    };
    const survival = measureSurvival(history, { messages: [summary] });
    expect(survival['files-edited'].visible).toBe(1);
    expect(survival['files-read'].visible).toBe(2);
    expect(survival.commands.visible).toBe(1);
    expect(survival['exit-codes'].visible).toBe(1);
    expect(survival.errors.visible).toBe(1);
    expect(survival.todo.visible).toBe(2);
    // The task keeps 8 of its 9 words; "also keep the API stable" is gone.
    expect(survival.task.visible).toBe(1);
    expect(survival['user-messages']).toEqual({ visible: 1, total: 2 });
  });

  it('a summary without a todo list keeps none of it, and a history without one has none to keep', () => {
    const noTodo = history.slice(0, 1);
    expect(measureSurvival(noTodo, { messages: [] }).todo).toEqual({ visible: 0, total: 0 });
    expect(
      measureSurvival(history, { messages: [{ role: 'user', content: 'Edited total.go' }] }).todo,
    ).toEqual({
      visible: 0,
      total: 2,
    });
  });

  it("counts Claude Code 2.1's task list: TaskCreate subjects, renamed or deleted by TaskUpdate", () => {
    const tasks: Message[] = [
      { role: 'user', content: 'plan it' },
      {
        role: 'assistant',
        content: [
          toolUse('k1', 'TaskCreate', { subject: 'Write the parser', description: 'd' }),
          toolUse('k2', 'TaskCreate', { subject: 'Scratch idea', description: 'd' }),
          toolUse('k3', 'TaskCreate', { subject: 'Check totals', description: 'd' }),
        ],
      },
      {
        role: 'assistant',
        content: [
          toolUse('k4', 'TaskUpdate', { taskId: '2', status: 'deleted' }),
          toolUse('k5', 'TaskUpdate', { taskId: '3', subject: 'Check the totals', status: 'in_progress' }),
          toolUse('k6', 'TaskUpdate', { taskId: '9', status: 'completed' }),
        ],
      },
    ];
    const kept = measureSurvival(tasks, {
      messages: [
        { role: 'user', content: '#1 [pending] Write the parser\n#3 [in_progress] Check the totals' },
      ],
    });
    expect(kept.todo).toEqual({ visible: 2, total: 2 });
    const lost = measureSurvival(tasks, {
      messages: [{ role: 'user', content: 'Write the parser. Scratch idea.' }],
    });
    expect(lost.todo).toEqual({ visible: 1, total: 2 });
  });

  it('takes a TaskList result as the task list in force: the tasks it shows, none once all are done', () => {
    const created: Message[] = [
      { role: 'user', content: 'plan it' },
      {
        role: 'assistant',
        content: [
          toolUse('k1', 'TaskCreate', { subject: 'Write the parser', description: 'd' }),
          toolUse('k2', 'TaskCreate', { subject: 'Check totals', description: 'd' }),
        ],
      },
      { role: 'assistant', content: [toolUse('k3', 'TaskList', {})] },
    ];
    const listed = (text: string): Message[] => [
      ...created,
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'k3', content: text }] },
    ];
    const nothing = { messages: [{ role: 'user' as const, content: 'ok' }] };
    expect(measureSurvival(listed('No tasks found'), nothing).todo).toEqual({ visible: 0, total: 0 });
    expect(measureSurvival(listed('#2 [in_progress] Check totals'), nothing).todo).toEqual({
      visible: 0,
      total: 1,
    });
    // A result that is not a list (an error) leaves the list as the calls built it.
    expect(measureSurvival(listed('Error: store unavailable'), nothing).todo).toEqual({
      visible: 0,
      total: 2,
    });
  });

  it('takes a command by the line that runs: not the comment opening it, its continuations joined', () => {
    const script: Message[] = [
      { role: 'user', content: 'reply to the review' },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'b1',
            name: 'Bash',
            input: { command: '# Help text outdated\ngh api repos/o/r/pulls/1/comments -f body=x' },
          },
          { type: 'tool_use', id: 'b2', name: 'Bash', input: { command: 'git add a.go \\\n  b.go' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'b1', content: 'ok' },
          { type: 'tool_result', tool_use_id: 'b2', content: '' },
        ],
      },
    ];
    const shown: Message = {
      role: 'user',
      content: 'Ran gh api repos/o/r/pulls/1/comments -f body=x; git add a.go b.go',
    };
    expect(measureSurvival(script, { messages: [shown] }).commands).toEqual({ visible: 2, total: 2 });
    const comment: Message = { role: 'user', content: '# Help text outdated; git add a.go \\' };
    expect(measureSurvival(script, { messages: [comment] }).commands).toEqual({ visible: 0, total: 2 });
  });

  it('reads Codex calls: exec_command commands, apply_patch files, update_plan items', () => {
    const codex: Message[] = [
      { role: 'user', content: 'add a flag' },
      {
        role: 'assistant',
        content: [
          toolUse('c1', 'exec_command', { cmd: 'go build ./...' }),
          toolUse('c2', 'apply_patch', '*** Begin Patch\n*** Update File: /repo/main.go\n@@\n*** End Patch'),
          toolUse('c3', 'update_plan', { plan: [{ step: 'Add the flag', status: 'in_progress' }] }),
        ],
      },
      {
        role: 'user',
        content: [
          toolResult('c1', 'Process exited with code 2\nmain.go:3: undefined: dryRun'),
          toolResult('c2', 'ok'),
          toolResult('c3', 'ok'),
        ],
      },
    ];
    const survival = measureSurvival(codex, { messages: codex });
    expect(survival.commands).toEqual({ visible: 1, total: 1 });
    expect(survival['files-edited']).toEqual({ visible: 1, total: 1 });
    expect(survival.todo).toEqual({ visible: 1, total: 1 });
    expect(survival['exit-codes']).toEqual({ visible: 1, total: 1 });
    expect(survival.errors).toEqual({ visible: 1, total: 1 });
  });

  it('judges each text block of a user message: harness markup beside typed text is not typed', () => {
    const typed = 'go run ./cmd/git-sync sync --protocol v2 https://example.com/repo.git';
    const marked: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>' },
          { type: 'text', text: 'why does the sync hang' },
        ],
      },
      { role: 'assistant', content: 'Looking.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: typed },
          {
            type: 'text',
            text: '<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>',
          },
        ],
      },
      { role: 'assistant', content: 'Stopped.' },
      // Codex's developer notice, a user message once imported: not typed either.
      { role: 'user', content: 'Approved command prefix saved:\n- ["go", "run", "./cmd/git-sync"]' },
    ];
    const survival = measureSurvival(marked, {
      messages: [{ role: 'user', content: `why does the sync hang\n${typed}` }],
    });
    expect(survival['user-messages']).toEqual({ visible: 2, total: 2 });
    expect(survival.task).toEqual({ visible: 1, total: 1 });
  });

  it("takes a task in its own tag (mini-swe-agent's <pr_description>) for the user's", () => {
    const task = '<pr_description>\nTIME_ZONE in DATABASES is ignored on SQLite and MySQL\n</pr_description>';
    const history: Message[] = [
      { role: 'user', content: task },
      { role: 'assistant', content: 'Looking.' },
    ];
    expect(measureSurvival(history, { messages: [{ role: 'user', content: 'Go on.' }] }).task).toEqual({
      visible: 0,
      total: 1,
    });
    expect(measureSurvival(history, { messages: [{ role: 'user', content: task }] }).task).toEqual({
      visible: 1,
      total: 1,
    });
  });
});
