import type { Message } from '../../core/model/messages.js';

/** The messages turn `n` adds to the session. */
export function crashSessionTurn(n: number): Message[];
/** The session after `turns` turns (turn 0, the task, included). */
export function crashSession(turns: number): Message[];
