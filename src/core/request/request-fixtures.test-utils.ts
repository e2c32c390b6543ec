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

/** What Claude Code puts in a mid-conversation system message: the agents and skills it offers. */
const agentTypesText = [
  'Available agent types for the Agent tool:',
  '- general-purpose: researches questions and runs multi-step tasks. (Tools: *)',
  '- Explore: read-only search across many files. (Tools: all but Edit and Write)',
  '',
  'When you launch several agents for independent work, send them in one message.',
].join('\n');

/**
 * A Claude Code–like request, in the shape Claude Code 2.1 sends (seen against the scripted
 * server): three system blocks (a billing line, then two with `cache_control`), 12 tools, adaptive
 * thinking, `output_config`, `context_management`, a JSON `metadata.user_id`, a mid-conversation
 * `role: "system"` message after the first user message, and breakpoints on the last two user
 * messages. Every value is made up.
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
    { role: 'system', content: agentTypesText },
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
      { type: 'text', text: 'x-anthropic-billing-header: cc_version=0.0.0; cc_entrypoint=cli;' },
      {
        type: 'text',
        text: 'You are a coding agent that works in the user’s repository.',
        cache_control: { type: 'ephemeral' },
      },
      { type: 'text', text: fakeFile('instructions', 60), cache_control: { type: 'ephemeral' } },
    ],
    tools: claudeCodeTools(),
    metadata: {
      user_id: JSON.stringify({
        device_id: '0'.repeat(64),
        account_uuid: '',
        session_id: '00000000-0000-4000-8000-000000000000',
      }),
    },
    max_tokens: 64_000,
    thinking: { type: 'adaptive' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    output_config: { effort: 'high' },
    stream: true,
  };
}

/** The body Codex sends: Responses params plus the `client_metadata` it adds. */
export type CodexRequest = ResponseCreateParamsStreaming & { client_metadata?: Record<string, string> };

/** A message item with the `id` Codex gives every item (the SDK's input message type has none). */
function codexMessage(id: string, role: 'user' | 'developer', text: string): ResponseInputItem {
  const item: ResponseInputItem.Message & { id: string } = {
    type: 'message',
    id,
    role,
    content: [{ type: 'input_text', text }],
  };
  return item;
}

/** One Codex turn: encrypted reasoning, an `exec_command` call, its output (ids as Codex sends them). */
function codexTurn(number: number): ResponseInputItem[] {
  const suffix = String(number).padStart(4, '0');
  const callId = `call_${suffix}aBcD`;
  const command = `sed -n 1,200p src/module-${number}.ts`;
  return [
    {
      type: 'reasoning',
      id: `rs_${suffix}`,
      summary: [{ type: 'summary_text', text: `**Checking part ${number}**` }],
      encrypted_content: `gAAAAABo${'Q'.repeat(40)}${number}ENCRYPTED==`,
    },
    {
      type: 'function_call',
      status: 'completed',
      id: `fc_${suffix}`,
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: command, workdir: '/repo' }),
      call_id: callId,
    },
    {
      type: 'function_call_output',
      id: `fco_${suffix}`,
      call_id: callId,
      output: `Chunk ID: ${suffix}\nWall time: 0.0100 seconds\nProcess exited with code 0\nOutput:\n${fakeFile(`module-${number}`, 80)}`,
    },
  ];
}

/**
 * A Codex-like Responses request, in the shape `codex exec` 0.171 sends (seen against the scripted
 * server): developer messages first (permissions, then the agents' notes), the environment
 * context and the task as user messages with item ids, reasoning items with `encrypted_content`,
 * `exec_command` calls with `status`, a `namespace` tool and `web_search` beside the functions,
 * `include`, `store: false`, `prompt_cache_key` and `client_metadata`. It also carries
 * `instructions`, which earlier Codex versions send. Every value is made up.
 */
export function codexRequest(turns = 24): CodexRequest {
  const input: ResponseInputItem[] = [
    codexMessage(
      'msg_0001',
      'developer',
      '<permissions instructions>\nThe sandbox is read-only; the network is off.\n</permissions instructions>',
    ),
    codexMessage('msg_0002', 'developer', fakeFile('agents-notes', 30)),
    codexMessage(
      'msg_0003',
      'user',
      '<environment_context>\n  <cwd>/repo</cwd>\n  <shell>bash</shell>\n</environment_context>',
    ),
    codexMessage('msg_0004', 'user', 'The tests in src/ fail since the last merge. Fix them.'),
  ];
  for (let number = 1; number <= turns; number++) input.push(...codexTurn(number));
  return {
    model: 'gpt-5-codex',
    instructions: `You are a coding agent running in a terminal.\n${fakeFile('codex-instructions', 40)}`,
    stream: true,
    input,
    tools: [
      {
        type: 'function',
        name: 'exec_command',
        description: 'Runs a command in a PTY and returns its output.',
        strict: false,
        parameters: {
          type: 'object',
          properties: {
            cmd: { type: 'string', description: 'The shell command to execute' },
            workdir: { type: 'string', description: 'The working directory' },
            yield_time_ms: { type: 'number', description: 'How long to wait for output' },
          },
          required: ['cmd'],
          additionalProperties: false,
        },
      },
      {
        type: 'namespace',
        name: 'multi_agent_v1',
        description: 'Tools for spawning and managing sub-agents.',
        tools: [
          {
            type: 'function',
            name: 'close_agent',
            description: 'Close an agent.',
            parameters: { type: 'object', properties: {} },
          },
        ],
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
      { type: 'web_search' },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { effort: 'medium', summary: 'auto' },
    store: false,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: '00000000-0000-4000-8000-000000000001',
    client_metadata: {
      root_turn_id: '00000000-0000-4000-8000-000000000002',
      turn_id: '00000000-0000-4000-8000-000000000002',
      session_id: '00000000-0000-4000-8000-000000000001',
    },
  };
}
