import { describe, expect, it } from 'vitest';
import type { Message } from '../model/messages.js';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { LedgerRecorder } from './record-messages.js';
import { renderLedger } from './render-ledger.js';
import { TASK_PLAN_TOOL } from './task-list.js';

/** Claude Code 2.1's task calls and the results it sends back (as recorded from the real CLI). */
function taskSession(): Message[] {
  const call = (id: string, name: string, input: Record<string, unknown>, result: string): Message[] => [
    { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
  ];
  return [
    { role: 'user', content: 'Write the parts, then check the totals.' },
    ...call(
      't1',
      'TaskCreate',
      { subject: 'Write part files', description: 'Ten files', activeForm: 'Writing part files' },
      'Task #1 created successfully: Write part files',
    ),
    ...call(
      't2',
      'TaskCreate',
      { subject: 'Check totals', description: 'Count' },
      'Task #2 created successfully: Check totals',
    ),
    ...call(
      't3',
      'TaskCreate',
      { subject: 'Scratch idea', description: 'Maybe' },
      'Task #3 created successfully: Scratch idea',
    ),
    ...call('t4', 'TaskUpdate', { taskId: '1', status: 'completed' }, 'Updated task #1 status'),
    ...call(
      't5',
      'TaskUpdate',
      { taskId: '2', status: 'in_progress', subject: 'Check the totals' },
      'Updated task #2 status, subject',
    ),
    ...call('t6', 'TaskUpdate', { taskId: '3', status: 'deleted' }, 'Updated task #3 deleted'),
  ];
}

describe('Claude Code task tools in the ledger', () => {
  it('builds the plan in force from TaskCreate and TaskUpdate, as TaskList would print it', () => {
    const recorder = new LedgerRecorder();
    recorder.sync(taskSession());
    expect(recorder.state.plan).toMatchObject({
      tool: TASK_PLAN_TOOL,
      items: ['#1 [completed] Write part files', '#2 [in_progress] Check the totals'],
    });
    const text = renderLedger(recorder.state, { maxTokens: 2_000, counter: createHeuristicCounter() });
    expect(text).toContain('- #2 [in_progress] Check the totals');
  });

  it('takes a TaskList result as the whole list, the way the agent saw it', () => {
    const recorder = new LedgerRecorder();
    recorder.sync([
      ...taskSession(),
      { role: 'assistant', content: [{ type: 'tool_use', id: 'l1', name: 'TaskList', input: {} }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'l1',
            content: '#1 [completed] Write part files\n#4 [pending] Ship it',
          },
        ],
      },
    ]);
    expect(recorder.state.plan?.items).toEqual(['#1 [completed] Write part files', '#4 [pending] Ship it']);
  });

  it('leaves the plan alone when a task call failed or updates a task it never saw', () => {
    const recorder = new LedgerRecorder();
    recorder.sync([
      ...taskSession(),
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'u9', name: 'TaskUpdate', input: { taskId: '9', status: 'completed' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'u9', content: 'Updated task #9 status' }],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c9', name: 'TaskCreate', input: { subject: 'Lost' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'c9', content: 'Error: no task list', is_error: true }],
      },
    ]);
    expect(recorder.state.plan?.items).toEqual([
      '#1 [completed] Write part files',
      '#2 [in_progress] Check the totals',
    ]);
  });
});
