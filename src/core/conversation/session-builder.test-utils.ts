import type { Message } from '../model/messages.js';

/** Deterministic file-like text of about `lines` lines. */
export function fakeFile(name: string, lines: number): string {
  return Array.from(
    { length: lines },
    (_, index) => `${index + 1}\t// ${name}: line ${index + 1} const value${index} = compute(${index});`,
  ).join('\n');
}

/** One agent turn: an assistant tool call and the user message answering it. */
export function toolTurn(
  number: number,
  options: { lines?: number; tool?: string; error?: boolean; text?: string } = {},
): Message[] {
  const { lines = 120, tool = number % 2 === 0 ? 'read_file' : 'bash', error = false, text } = options;
  const id = `toolu_${number}`;
  const input =
    tool === 'read_file' ? { path: `src/module-${number}.ts` } : { command: `npm test -- part${number}` };
  const output =
    tool === 'read_file'
      ? fakeFile(`module-${number}`, lines)
      : `<returncode>${error ? 1 : 0}</returncode>\n${error ? `Error: test part${number} failed\n` : ''}${fakeFile(`log-${number}`, lines)}`;
  return [
    {
      role: 'assistant',
      content: [
        {
          type: 'text',
          text:
            text ?? `Step ${number}: I will look at ${tool === 'read_file' ? 'the module' : 'the tests'}.`,
        },
        { type: 'tool_use', id, name: tool, input },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: id, content: output, ...(error ? { is_error: true } : {}) },
      ],
    },
  ];
}

/** A coding-agent session: the task, then `turns` tool turns. */
export function agentSession(turns: number, options: { lines?: number } = {}): Message[] {
  const messages: Message[] = [
    { role: 'user', content: 'Fix the failing tests in src/ without changing the public API.' },
  ];
  for (let number = 1; number <= turns; number++)
    messages.push(...toolTurn(number, { ...options, error: number % 7 === 0 }));
  return messages;
}
