/** Small Claude Code sessions and Codex rollouts with the agents' own compactions, built line by line. */

let uuidCounter = 0;

/** A Claude Code session line chained to the previous one. */
interface ClaudeCodeLineSpec {
  type: string;
  [key: string]: unknown;
}

/** Serializes Claude Code lines, chaining `parentUuid` (a boundary starts a new chain). */
export function claudeCodeJsonl(lines: readonly ClaudeCodeLineSpec[]): string {
  let parent: string | null = null;
  const out: string[] = [];
  for (const line of lines) {
    const uuid = `u-${++uuidCounter}`;
    const boundary = line.type === 'system' && line.subtype === 'compact_boundary';
    out.push(
      JSON.stringify({
        ...(boundary ? { parentUuid: null, logicalParentUuid: parent } : { parentUuid: parent }),
        isSidechain: false,
        sessionId: 's-1',
        uuid,
        timestamp: '2026-01-12T17:19:18.622Z',
        ...line,
      }),
    );
    parent = uuid;
  }
  return `${out.join('\n')}\n`;
}

export const cc = {
  user: (content: unknown, extra: Record<string, unknown> = {}) => ({
    type: 'user',
    message: { role: 'user', content },
    ...extra,
  }),
  assistant: (id: string, content: unknown) => ({
    type: 'assistant',
    message: {
      id,
      role: 'assistant',
      model: 'claude-opus-4-6',
      content,
      usage: { input_tokens: 10, output_tokens: 5 },
    },
  }),
  toolUse: (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input }),
  toolResult: (id: string, content: string, isError = false) => ({
    type: 'tool_result',
    tool_use_id: id,
    content,
    ...(isError ? { is_error: true } : {}),
  }),
  boundary: () => ({
    type: 'system',
    subtype: 'compact_boundary',
    content: 'Conversation compacted',
    compactMetadata: { trigger: 'auto', preTokens: 155_000 },
  }),
  summary: (text: string) => ({
    type: 'user',
    isCompactSummary: true,
    message: { role: 'user', content: text },
  }),
};

/** A Claude Code session: a task, an edit, a failing command, a todo list, a compaction, more work. */
export function compactedClaudeCodeSession({ withSummary = true } = {}): string {
  return claudeCodeJsonl([
    cc.user('Please fix the flaky checkout test in cart.go'),
    cc.assistant('m1', [cc.toolUse('t1', 'Read', { file_path: '/repo/cart.go' })]),
    cc.user([cc.toolResult('t1', 'package cart')]),
    cc.assistant('m2', [cc.toolUse('t2', 'Bash', { command: 'go test ./cart/...' })]),
    cc.user([cc.toolResult('t2', 'Exit code 1\n--- FAIL: TestCheckout', true)]),
    cc.assistant('m3', [
      cc.toolUse('t3', 'TodoWrite', {
        todos: [
          { content: 'Fix rounding in total', status: 'in_progress' },
          { content: 'Run the race detector', status: 'pending' },
        ],
      }),
    ]),
    cc.user([cc.toolResult('t3', 'Todos have been modified successfully')]),
    cc.assistant('m4', [
      cc.toolUse('t4', 'Edit', { file_path: '/repo/cart.go', old_string: 'a', new_string: 'b' }),
    ]),
    cc.user([cc.toolResult('t4', 'The file /repo/cart.go has been updated.')]),
    cc.boundary(),
    ...(withSummary
      ? [
          cc.summary(
            'This session is being continued from a previous conversation. The user asked to fix the flaky checkout test; cart.go was edited.',
          ),
        ]
      : []),
    cc.user('<system-reminder>Called the Read tool</system-reminder>', { isMeta: true }),
    cc.assistant('m5', [{ type: 'text', text: 'Continuing: running the tests again.' }]),
    cc.user('thanks, now run the race detector'),
    cc.assistant('m6', [{ type: 'text', text: 'Done.' }]),
  ]);
}

/** A Codex rollout line. */
function rolloutLine(type: string, payload: unknown): string {
  return JSON.stringify({ timestamp: '2026-04-11T20:32:29.957Z', type, payload });
}

const message = (role: string, text: string) => ({
  type: 'message',
  role,
  content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
});
const tokenCount = (input: number) => ({
  type: 'token_count',
  info: { last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 7 } },
});

/** A Codex rollout with one compaction; `joinLine` puts two objects on one line. */
export function codexRolloutLines({ joinLine = false } = {}): string[] {
  const lines = [
    rolloutLine('session_meta', {
      id: 'r-1',
      cli_version: '0.118.0',
      base_instructions: { text: 'You are Codex.' },
    }),
    rolloutLine('turn_context', { cwd: '/repo' }),
    rolloutLine('response_item', message('user', 'Add a --dry-run flag to git-sync')),
    rolloutLine('event_msg', { type: 'user_message', message: 'Add a --dry-run flag to git-sync' }),
    rolloutLine('response_item', {
      type: 'function_call',
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: 'go test ./...' }),
      call_id: 'c1',
    }),
    rolloutLine('response_item', {
      type: 'function_call_output',
      call_id: 'c1',
      output: 'Process exited with code 2\nOutput:\nmain.go:3: undefined: dryRun',
    }),
    rolloutLine('event_msg', tokenCount(1200)),
    rolloutLine('response_item', message('assistant', 'The build fails; adding the flag.')),
    rolloutLine('event_msg', tokenCount(1500)),
    rolloutLine('compacted', {
      message: '',
      replacement_history: [
        message('user', 'Add a --dry-run flag to git-sync'),
        { type: 'compaction', encrypted_content: 'xyz' },
      ],
    }),
    rolloutLine('event_msg', { type: 'context_compacted' }),
    rolloutLine('response_item', message('user', 'and document it')),
    rolloutLine('response_item', message('assistant', 'Documented in README.')),
    rolloutLine('event_msg', tokenCount(900)),
  ];
  if (joinLine) lines.splice(7, 2, `${lines[7]}${lines[8]}`);
  return lines;
}
