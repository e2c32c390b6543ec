/**
 * Whole request bodies in the shapes real agents send, built by hand from the official SDKs'
 * types (nothing recorded, nothing secret). `__fixtures__/*.json` hold the same bodies for the CLI;
 * `request-fixtures.test.ts` keeps the two equal.
 */
import type {
  BetaContentBlockParam,
  BetaMessageParam,
  BetaTool,
  MessageCreateParamsStreaming,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ResponseCreateParamsStreaming, ResponseInputItem } from 'openai/resources/responses/responses';
import { fakeFile } from '../conversation/session-builder.test-utils.js';

/** The body Claude Code sends: the beta Messages params less the `betas` header. */
export type ClaudeCodeRequest = Omit<MessageCreateParamsStreaming, 'betas'>;

/** A tool with a long, manual-like description, as coding agents ship them. */
function tool(
  name: string,
  purpose: string,
  properties: Record<string, string>,
  required: string[],
): BetaTool {
  const notes = [
    `${name} is one of the agent's tools. ${purpose}`,
    'Usage notes:',
    ...Array.from(
      { length: 17 },
      (_, index) =>
        `- Note ${index + 1} for ${name}: prefer exact, absolute paths; say what you expect before you call it, check the result before the next step, and never repeat a call whose result you already have in the conversation.`,
    ),
    `When ${name} fails, read the error, change one thing and try again; report what you could not do.`,
  ];
  return {
    name,
    description: notes.join('\n'),
    input_schema: {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(properties).map(([key, description]) => [key, { type: 'string', description }]),
      ),
      required,
      additionalProperties: false,
      $schema: 'http://json-schema.org/draft-07/schema#',
    },
  };
}

/** Twelve tools of about 47k characters in all, the size Claude Code sends. */
export function claudeCodeTools(): BetaTool[] {
  return [
    tool(
      'Task',
      'Starts a sub-agent for a multi-step search.',
      { description: 'Three to five words', prompt: 'The task' },
      ['description', 'prompt'],
    ),
    tool(
      'Bash',
      'Runs a shell command in a persistent shell.',
      { command: 'The command', description: 'What it does' },
      ['command'],
    ),
    tool('Glob', 'Finds files by glob pattern.', { pattern: 'The glob', path: 'Where to look' }, ['pattern']),
    tool(
      'Grep',
      'Searches file contents with a regular expression.',
      { pattern: 'The regex', path: 'Where to look', glob: 'Files to include' },
      ['pattern'],
    ),
    tool('LS', 'Lists a directory.', { path: 'Absolute path' }, ['path']),
    tool('ExitPlanMode', 'Ends planning and asks to start.', { plan: 'The plan' }, ['plan']),
    tool(
      'Read',
      'Reads a file with line numbers.',
      { file_path: 'Absolute path', offset: 'First line', limit: 'How many lines' },
      ['file_path'],
    ),
    tool(
      'Edit',
      'Replaces an exact string in a file.',
      { file_path: 'Absolute path', old_string: 'Text to replace', new_string: 'Replacement' },
      ['file_path', 'old_string', 'new_string'],
    ),
    tool(
      'MultiEdit',
      'Makes several edits to one file at once.',
      { file_path: 'Absolute path', edits: 'JSON list of edits' },
      ['file_path', 'edits'],
    ),
    tool('Write', 'Writes a whole file.', { file_path: 'Absolute path', content: 'The content' }, [
      'file_path',
      'content',
    ]),
    tool(
      'WebFetch',
      'Fetches a URL and answers a question about it.',
      { url: 'The URL', prompt: 'The question' },
      ['url', 'prompt'],
    ),
    tool('TodoWrite', 'Keeps the task list of the session.', { todos: 'JSON list of todos' }, ['todos']),
  ];
}

/** One agent turn: signed thinking, a sentence, a tool call; then its result. */
function turn(number: number): BetaMessageParam[] {
  const id = `toolu_01${String(number).padStart(4, '0')}Qx`;
  const call: BetaContentBlockParam =
    number % 2 === 0
      ? { type: 'tool_use', id, name: 'Read', input: { file_path: `/repo/src/module-${number}.ts` } }
      : {
          type: 'tool_use',
          id,
          name: 'Bash',
          input: { command: `npm test -- part${number}`, description: 'Run the tests' },
        };
  return [
    {
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          thinking: `Step ${number}: look at the next part.`,
          signature: `EqQBCkYIBxgCKkD${number}sigZ`,
        },
        { type: 'text', text: `Checking part ${number}.` },
        call,
      ],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content: fakeFile(`module-${number}`, 80) }],
    },
  ];
}

/**
 * A Claude Code–like request: system blocks with `cache_control`, 12 tools, thinking, a
 * `metadata.user_id`, a long tool session with breakpoints on the last two user messages.
 */
export function claudeCodeRequest(turns = 24): ClaudeCodeRequest {
  const messages: BetaMessageParam[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: '<system-reminder>\nThe working directory is /repo.\n</system-reminder>' },
        { type: 'text', text: 'The tests in src/ fail since the last merge. Find out why and fix them.' },
      ],
    },
  ];
  for (let number = 1; number <= turns; number++) messages.push(...turn(number));
  for (const index of [messages.length - 3, messages.length - 1]) {
    const blocks = messages[index]!.content as BetaContentBlockParam[];
    blocks[blocks.length - 1] = {
      ...blocks[blocks.length - 1]!,
      cache_control: { type: 'ephemeral' },
    } as BetaContentBlockParam;
  }
  return {
    model: 'claude-sonnet-4-5-20250929',
    messages,
    system: [
      {
        type: 'text',
        text: 'You are a coding agent that works in the user’s repository.',
        cache_control: { type: 'ephemeral' },
      },
      { type: 'text', text: fakeFile('instructions', 60), cache_control: { type: 'ephemeral' } },
    ],
    tools: claudeCodeTools(),
    metadata: {
      user_id:
        'user_0000000000000000000000000000000000000000000000000000000000000000_account__session_00000000-0000-4000-8000-000000000000',
    },
    max_tokens: 32_000,
    thinking: { type: 'enabled', budget_tokens: 31_999 },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    stream: true,
  };
}

/** The body Codex sends: Responses params plus the `client_metadata` it adds. */
export type CodexRequest = ResponseCreateParamsStreaming & { client_metadata?: Record<string, string> };

/** One Codex turn: encrypted reasoning, a shell call, its output. */
function codexTurn(number: number): ResponseInputItem[] {
  const callId = `call_${String(number).padStart(4, '0')}aBcD`;
  return [
    {
      type: 'reasoning',
      id: `rs_${String(number).padStart(4, '0')}`,
      summary: [{ type: 'summary_text', text: `**Checking part ${number}**` }],
      encrypted_content: `gAAAAABo${'Q'.repeat(40)}${number}ENCRYPTED==`,
    },
    {
      type: 'function_call',
      name: 'shell',
      arguments: JSON.stringify({
        command: ['bash', '-lc', `sed -n 1,200p src/module-${number}.ts`],
        workdir: '/repo',
      }),
      call_id: callId,
    },
    { type: 'function_call_output', call_id: callId, output: fakeFile(`module-${number}`, 80) },
  ];
}

/**
 * A Codex-like Responses request: `instructions`, a developer message, the environment context,
 * reasoning items with `encrypted_content`, `include`, `store: false`, `prompt_cache_key` and
 * `client_metadata`.
 */
export function codexRequest(turns = 24): CodexRequest {
  const input: ResponseInputItem[] = [
    {
      type: 'message',
      role: 'developer',
      content: [
        {
          type: 'input_text',
          text: '<permissions instructions>\nThe sandbox is workspace-write; the network is off.\n</permissions instructions>',
        },
      ],
    },
    {
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: '<environment_context>\n  <cwd>/repo</cwd>\n  <shell>bash</shell>\n</environment_context>',
        },
      ],
    },
    {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'The tests in src/ fail since the last merge. Fix them.' }],
    },
  ];
  for (let number = 1; number <= turns; number++) input.push(...codexTurn(number));
  return {
    model: 'gpt-5-codex',
    instructions: `You are a coding agent running in a terminal.\n${fakeFile('codex-instructions', 80)}`,
    input,
    tools: [
      {
        type: 'function',
        name: 'shell',
        description: 'Runs a shell command and returns its output.',
        strict: false,
        parameters: {
          type: 'object',
          properties: {
            command: { type: 'array', items: { type: 'string' }, description: 'The command to execute' },
            workdir: { type: 'string', description: 'The working directory' },
            timeout_ms: { type: 'number', description: 'The timeout in milliseconds' },
          },
          required: ['command'],
          additionalProperties: false,
        },
      },
      {
        type: 'custom',
        name: 'apply_patch',
        description: 'Edits files with a patch.',
        format: {
          type: 'grammar',
          syntax: 'lark',
          definition: 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF',
        },
      },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: false,
    reasoning: { effort: 'medium', summary: 'auto' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: '00000000-0000-4000-8000-000000000001',
    client_metadata: { originator: 'codex_cli_rs', session: '00000000-0000-4000-8000-000000000001' },
  };
}
