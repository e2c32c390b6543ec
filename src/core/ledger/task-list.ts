/**
 * Claude Code's task tools (TaskCreate / TaskUpdate / TaskList, which replaced TodoWrite in 2.1)
 * change the plan one task at a time. The ledger keeps the list they build in the same form
 * TaskList prints it — `#1 [in_progress] Write the parser` — so it renders like any other plan.
 */
import type { LedgerState, TaskOperation } from './ledger-state.js';

/** The name the ledger's plan carries when the task tools built it. */
export const TASK_PLAN_TOOL = 'TaskCreate/TaskUpdate';
const taskItem = /^#(\S+) \[([^\]]+)\] (.*)$/;
const createdId = /Task #(\S+) created/;

/** The task operation of a tool call named `name` (lower case), or undefined for other tools. */
export function taskOperation(name: string, input: Record<string, unknown>): TaskOperation | undefined {
  if (name === 'taskcreate' && typeof input.subject === 'string')
    return { op: 'create', subject: input.subject };
  if (name === 'taskupdate' && (typeof input.taskId === 'string' || typeof input.taskId === 'number')) {
    return {
      op: 'update',
      id: String(input.taskId),
      ...(typeof input.status === 'string' ? { status: input.status } : {}),
      ...(typeof input.subject === 'string' ? { subject: input.subject } : {}),
    };
  }
  if (name === 'tasklist') return { op: 'list' };
  return undefined;
}

/**
 * Applies a task call once its result is in: a create takes its id from the result (`Task #3
 * created successfully: …`), a TaskList result is the whole list as the agent sees it.
 */
export function applyTaskOperation(
  state: LedgerState,
  operation: TaskOperation,
  turn: number,
  resultText: string,
): void {
  const items = state.plan?.tool === TASK_PLAN_TOOL ? state.plan.items.slice() : [];
  const index = (id: string) => items.findIndex((item) => taskItem.exec(item)?.[1] === id);
  if (operation.op === 'list') {
    const listed = resultText.split('\n').filter((line) => taskItem.test(line.trim()));
    if (listed.length === 0 && resultText.trim() !== 'No tasks found') return;
    items.splice(0, items.length, ...listed.map((line) => line.trim()));
  } else if (operation.op === 'create') {
    const id = createdId.exec(resultText)?.[1] ?? String(nextId(items));
    items.push(`#${id} [pending] ${operation.subject}`);
  } else {
    const at = index(operation.id);
    if (at === -1) return;
    const [, id, status, subject] = taskItem.exec(items[at]!)!;
    if (operation.status === 'deleted') items.splice(at, 1);
    else items[at] = `#${id} [${operation.status ?? status}] ${operation.subject ?? subject}`;
  }
  state.plan = { tool: TASK_PLAN_TOOL, turn, items };
}

function nextId(items: string[]): number {
  const ids = items.map((item) => Number(taskItem.exec(item)?.[1])).filter(Number.isFinite);
  return Math.max(0, ...ids) + 1;
}
