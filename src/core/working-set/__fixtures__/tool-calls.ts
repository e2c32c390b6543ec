import { LedgerRecorder } from '../../ledger/record-messages.js';
import type { Message } from '../../model/messages.js';

/** A file's text as Claude Code's Read shows it: `     12→line`, from line `from`. */
export const numbered = (text: string, from = 1) =>
  text
    .split('\n')
    .map((line, index) => `${String(from + index).padStart(6)}→${line}`)
    .join('\n');

let next = 0;
/** One assistant call and its result. */
export function call(name: string, input: Record<string, unknown>, result: string, isError = false): Message[] {
  const id = `toolu_${++next}`;
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: id, content: result, ...(isError ? { is_error: true } : {}) },
      ],
    },
  ];
}

/** A ledger that recorded `messages` after the user's first message. */
export function record(messages: Message[]): LedgerRecorder {
  const recorder = new LedgerRecorder();
  recorder.sync([{ role: 'user', content: 'count the tokens' }, ...messages]);
  return recorder;
}
