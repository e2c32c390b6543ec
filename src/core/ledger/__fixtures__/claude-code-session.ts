import type { Message } from '../../model/messages.js';

/** A small Claude Code-shaped session: reads, an edit, a failing and a passing test run, a todo list. */
export function claudeCodeSession(): Message[] {
  const use = (id: string, name: string, input: Record<string, unknown>): Message => ({
    role: 'assistant',
    content: [{ type: 'tool_use', id, name, input }],
  });
  const result = (id: string, content: string, isError = false): Message => ({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }],
  });
  const filler = (label: string) => Array.from({ length: 80 }, (_, line) => `${label} line ${line}`).join('\n');
  return [
    { role: 'user', content: 'Fix the failing parser test in src/parser.ts, and do not touch the CLI.' },
    use('t1', 'TodoWrite', {
      todos: [
        { content: 'Reproduce the parser failure', status: 'in_progress', activeForm: 'Reproducing' },
        { content: 'Fix parseHeader off-by-one', status: 'pending', activeForm: 'Fixing' },
      ],
    }),
    result('t1', 'Todos have been modified successfully.'),
    use('t2', 'Read', { file_path: '/repo/src/parser.ts' }),
    result('t2', `export function parseHeader() {}\n${filler('parser')}`),
    use('t3', 'Bash', { command: 'npm test -- parser\necho done', description: 'Run the parser tests' }),
    result('t3', `Exit code 1\nFAIL src/parser.test.ts\n${filler('log')}`, true),
    use('t4', 'Edit', { file_path: '/repo/src/parser.ts', old_string: 'a', new_string: 'b' }),
    result('t4', 'The file /repo/src/parser.ts has been updated.'),
    use('t5', 'Read', { file_path: '/repo/src/lexer.ts' }),
    result('t5', `export const lexer = 1;\n${filler('lexer')}`),
    { role: 'user', content: 'Also keep the public API unchanged please.' },
    use('t6', 'TodoWrite', {
      todos: [
        { content: 'Reproduce the parser failure', status: 'completed', activeForm: 'Reproducing' },
        { content: 'Fix parseHeader off-by-one', status: 'completed', activeForm: 'Fixing' },
        { content: 'Run the whole suite', status: 'in_progress', activeForm: 'Running' },
      ],
    }),
    result('t6', 'Todos have been modified successfully.'),
    use('t7', 'Bash', { command: 'npm test' }),
    result('t7', `all passed\n${filler('ok')}`),
    { role: 'assistant', content: 'The parser is fixed and the suite passes.' },
    { role: 'user', content: 'Great, now write a changelog entry.' },
  ];
}
