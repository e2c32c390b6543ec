import type {
  BetaMessageParam,
  MessageCreateParamsNonStreaming,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { createCompactor } from '../compactor.js';
import { agentSession, fakeFile } from '../conversation/session-builder.test-utils.js';
import { validateMessages } from '../conversation/validate.js';
import { CompactError } from '../model/errors.js';
import type { Message, ToolResultBlock } from '../model/messages.js';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { countToolTokens } from '../tokens/tool-tokens.js';
import { countFixedBreakpoints, countMessageBreakpoints, keepCacheBreakpoints } from './cache-breakpoints.js';
import { compactRequest } from './compact-request-once.js';
import { detectRequestFormat } from './request-format.js';

type AnthropicBody = Omit<MessageCreateParamsNonStreaming, 'betas'>;

const tools: AnthropicBody['tools'] = [
  {
    name: 'Bash',
    description: 'Runs a shell command.',
    input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
  {
    name: 'Read',
    description: 'Reads a file.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } } },
    cache_control: { type: 'ephemeral' },
  },
];

/** An Anthropic request around a long agent session, with every top-level field an agent sends. */
function anthropicBody(turns: number): AnthropicBody {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 32_000,
    system: [
      { type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Work in /repo.' },
    ],
    messages: agentSession(turns) as BetaMessageParam[],
    tools,
    thinking: { type: 'enabled', budget_tokens: 4096 },
    context_management: { edits: [{ type: 'clear_thinking_20251015' }] },
    metadata: { user_id: 'user_abc_account_def_session_123' },
    stream: false,
  };
}

const forceMicro = { micro: { cacheAware: false, keepReads: { turns: 0 } } } as const;
const counter = createHeuristicCounter();

describe('compactRequest', () => {
  it('changes only the messages of an Anthropic request: same keys, same order, other fields equal', async () => {
    const body = anthropicBody(8);
    const snapshot = structuredClone(body);
    const result = await compactRequest(body, forceMicro);
    expect(result.format).toBe('anthropic');
    expect(result.layer).toBe('micro');
    expect(Object.keys(result.body)).toEqual(Object.keys(body));
    const { messages: _messages, ...rest } = result.body;
    const { messages: _before, ...restBefore } = snapshot;
    expect(rest).toEqual(restBefore);
    expect(result.body.system).toBe(body.system);
    expect(result.body.tools).toBe(body.tools);
    expect(result.body.messages).not.toEqual(snapshot.messages);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(result.archived.length).toBeGreaterThan(0);
    // The input body is never changed.
    expect(body).toEqual(snapshot);
    expect(validateMessages(result.body.messages)).toEqual([]);
  });

  it('counts the request’s tool definitions in tokensBefore and tokensAfter', async () => {
    const body = anthropicBody(2);
    const { tools: _tools, ...withoutTools } = body;
    const withTools = await compactRequest(body, { counter });
    const bare = await compactRequest(withoutTools, { counter });
    expect(withTools.tokensBefore - bare.tokensBefore).toBe(countToolTokens(tools, counter));
    expect(withTools.tokensAfter).toBe(withTools.tokensBefore);
  });

  it('returns the body itself when nothing needed compacting', async () => {
    const body = anthropicBody(2);
    const result = await compactRequest(body);
    expect(result.layer).toBe('none');
    expect(result.body).toBe(body);
  });

  it('keeps a compactor’s state between requests (createCompactor().compactRequest)', async () => {
    const compactor = createCompactor(forceMicro);
    const first = await compactor.compactRequest(anthropicBody(8));
    const second = await compactor.compactRequest(anthropicBody(9));
    expect(first.layer).toBe('micro');
    // The same tool results get the same archive ids: the second call reuses the first call's items.
    const placeholders = (messages: readonly unknown[]) =>
      JSON.stringify(messages).match(/recall r\d+/g) ?? [];
    expect(placeholders(second.body.messages).slice(0, 5)).toEqual(placeholders(first.body.messages));
  });

  it('compacts an OpenAI chat request and keeps its system message and untouched messages as they came', async () => {
    const anthropic = agentSession(8);
    const messages = toOpenAIChat(anthropic);
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: 'gpt-5',
      messages: [{ role: 'developer', content: 'You are a coding agent.', name: 'policy' }, ...messages],
      tools: [
        {
          type: 'function',
          function: { name: 'bash', description: 'Runs a command', parameters: { type: 'object' } },
        },
      ],
      max_completion_tokens: 4096,
      stream: false,
    };
    const result = await compactRequest(body, forceMicro);
    expect(result.format).toBe('openai');
    expect(result.layer).toBe('micro');
    expect(Object.keys(result.body)).toEqual(Object.keys(body));
    expect(result.body.messages[0]).toBe(body.messages[0]);
    // The first user message and the last turns were not changed: the client's own objects.
    expect(result.body.messages[1]).toBe(body.messages[1]);
    expect(result.body.messages.at(-1)).toBe(body.messages.at(-1));
    expect(result.body.messages).toHaveLength(body.messages.length);
    expect(validateMessages(result.body.messages, { format: 'openai' })).toEqual([]);
  });

  it.each([
    ['a string', 'hello', 'UNREADABLE_INPUT', undefined],
    ['no conversation', { model: 'x' }, 'UNREADABLE_INPUT', undefined],
    ['messages of the wrong type', { model: 'x', messages: {} }, 'UNREADABLE_INPUT', 'messages'],
    ['tools of the wrong type', { system: 'x', messages: [], tools: 'Bash' }, 'UNREADABLE_INPUT', 'tools'],
    [
      'a tool that is not an object',
      { system: 'x', messages: [], tools: [3] },
      'UNREADABLE_INPUT',
      'tools[0]',
    ],
    ['a null message', { model: 'x', system: 'x', messages: [null] }, 'INVALID_TRANSCRIPT', 'messages[0]'],
    [
      'an OpenAI part that is null',
      { max_completion_tokens: 3, messages: [{ role: 'user', content: [null] }] },
      'INVALID_TRANSCRIPT',
      'messages[0].content[0]',
    ],
    ['Responses input of the wrong type', { model: 'x', input: 5 }, 'UNREADABLE_INPUT', 'input'],
    ['a Responses item that is not an object', { model: 'x', input: [3] }, 'UNREADABLE_INPUT', 'input[0]'],
    [
      'instructions of the wrong type',
      { model: 'x', input: 'hi', instructions: 4 },
      'UNREADABLE_INPUT',
      'instructions',
    ],
    ['a system of the wrong type', { system: 3, messages: [] }, 'UNREADABLE_INPUT', 'system'],
    [
      'an Anthropic message whose role is null',
      {
        system: 'x',
        messages: [
          { role: 'user', content: 'go' },
          { role: null, content: 'x' },
        ],
      },
      'UNREADABLE_INPUT',
      'messages[1].role',
    ],
    [
      'a Responses call output whose output is null',
      {
        model: 'x',
        input: [
          { type: 'function_call', name: 'ls', arguments: '{}', call_id: 'c1' },
          { type: 'function_call_output', call_id: 'c1', output: null },
        ],
      },
      'UNREADABLE_INPUT',
      'input[1].output',
    ],
    [
      'a Responses call whose call_id is a number',
      { model: 'x', input: [{ type: 'function_call', name: 'ls', arguments: '{}', call_id: 42 }] },
      'UNREADABLE_INPUT',
      'input[0]',
    ],
    [
      'an OpenAI message without a role',
      { max_completion_tokens: 10, messages: [{ content: 'hi' }] },
      'UNREADABLE_INPUT',
      'messages[0]',
    ],
  ])('rejects %s with a CompactError naming the path', async (_name, body, code, path) => {
    const error = await compactRequest(body as object).catch((caught: unknown) => caught);
    expect(CompactError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code, path });
  });
});

describe('compactRequest errors', () => {
  it('names paths into the body past a provider compaction and a system message', async () => {
    const messages = [
      { role: 'user', content: 'start' },
      { role: 'system', content: 'You may use the Agent tool.' },
      { role: 'assistant', content: [{ type: 'compaction', content: 'Earlier work.' }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 5 }] },
    ];
    const error = await compactRequest({ model: 'x', system: 'x', messages }, { force: 'hard' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'INVALID_TRANSCRIPT', path: 'messages[3].content[0].content' });
    expect((error as Error).message).toMatch(
      /^messages\[3\]\.content\[0\]\.content: tool_result content must be/,
    );
  });
});

describe('provider compaction beside a tool call', () => {
  it.each(['mid', 'hard'] as const)(
    'keeps the tool_result of a compaction turn that calls a tool (force %s)',
    async (force) => {
      const messages = [
        { role: 'user', content: 'start' },
        {
          role: 'assistant',
          content: [
            { type: 'compaction', content: 'Earlier work.' },
            { type: 'tool_use', id: 'toolu_c', name: 'Bash', input: { command: 'ls' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_c', content: fakeFile('a.ts', 200) }],
        },
        ...agentSession(6).slice(1),
      ];
      const result = await compactRequest({ model: 'x', max_tokens: 10, messages }, { force });
      expect(validateMessages(result.body.messages)).toEqual([]);
      expect(JSON.stringify(result.body.messages)).toContain('"tool_use_id":"toolu_c"');
    },
  );
});

describe('detectRequestFormat', () => {
  it.each([
    ['an Anthropic system', { system: 'x', messages: [] }, 'anthropic'],
    ['Anthropic tools', { messages: [], tools: [{ name: 'a', input_schema: {} }] }, 'anthropic'],
    ['OpenAI tools', { messages: [], tools: [{ type: 'function', function: { name: 'a' } }] }, 'openai'],
    ['an OpenAI-only field', { messages: [], max_completion_tokens: 1 }, 'openai'],
    ['a tool message', { messages: [{ role: 'tool', tool_call_id: 'c', content: 'x' }] }, 'openai'],
    ['a tool_use block', { messages: [{ role: 'assistant', content: [{ type: 'tool_use' }] }] }, 'anthropic'],
    ['Responses input', { model: 'gpt-5', input: 'Hi', instructions: 'Be brief.' }, 'responses'],
  ])('reads %s', (_name, body, format) => {
    expect(detectRequestFormat(body)).toBe(format);
  });
});

describe('cache breakpoints', () => {
  it('keeps a breakpoint on a tool result that micro replaced by its placeholder', async () => {
    const body = anthropicBody(8);
    markResult(body, 4);
    markResult(body, 16);
    const result = await compactRequest(body, forceMicro);
    expect(result.layer).toBe('micro');
    const after = result.body.messages as Message[];
    const masked = (after[4]!.content as ToolResultBlock[])[0]!;
    expect(masked.content).toMatch(/^\[Previous: used/);
    expect(masked.cache_control).toEqual({ type: 'ephemeral' });
    expect(totalBreakpoints(result.body)).toBe(4);
  });

  it('drops the oldest message breakpoints when the request would carry more than 4', async () => {
    const body = anthropicBody(8);
    for (const index of [12, 14, 16]) markResult(body, index);
    expect(totalBreakpoints(body)).toBe(5);
    const result = await compactRequest(body, forceMicro);
    const after = result.body.messages as Message[];
    expect(totalBreakpoints(result.body)).toBe(4);
    expect(JSON.stringify(after[12])).not.toContain('cache_control');
    expect(JSON.stringify(after[14])).toContain('cache_control');
    expect(JSON.stringify(after[16])).toContain('cache_control');
  });

  it('keeps the breakpoint on the last message through a hard compaction that masked it', async () => {
    const body = anthropicBody(40);
    const messages = body.messages as Message[];
    // A last tool result too large to keep: hard masks it too.
    const last = messages.at(-1)!.content as ToolResultBlock[];
    last[0] = { ...last[0]!, content: fakeFile('huge', 3000) };
    markResult(body, messages.length - 1);
    const result = await compactRequest(body, { thresholds: { mid: 2000, hard: 4000 } });
    expect(result.layer).toBe('hard');
    const after = result.body.messages as Message[];
    const lastAfter = (after.at(-1)!.content as ToolResultBlock[]).at(-1)!;
    expect(lastAfter.content).toMatch(/^\[Previous: used/);
    expect(lastAfter.cache_control).toEqual({ type: 'ephemeral' });
    expect(totalBreakpoints(result.body)).toBeLessThanOrEqual(4);
    expect(validateMessages(after)).toEqual([]);
  });

  it('puts the breakpoint on the last block of a rewritten last message, never on thinking', () => {
    const before: Message[] = [
      {
        role: 'user',
        content: [{ type: 'text', text: 'go', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      },
    ];
    const after: Message[] = [
      { role: 'user', content: '<context_summary>…</context_summary>' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'ok' },
          { type: 'thinking', thinking: 'hm', signature: 'sig' },
        ],
      },
    ];
    const output = keepCacheBreakpoints({ before, after, fixedBreakpoints: 0 });
    expect(output[0]).toBe(after[0]);
    expect(output[1]!.content).toEqual([
      { type: 'text', text: 'ok', cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'thinking', thinking: 'hm', signature: 'sig' },
    ]);
  });
});

function markResult(body: AnthropicBody, index: number): void {
  const blocks = (body.messages as Message[])[index]!.content as ToolResultBlock[];
  blocks[0] = { ...blocks[0]!, cache_control: { type: 'ephemeral' } };
}

function totalBreakpoints(body: AnthropicBody): number {
  return countFixedBreakpoints(body.system, body.tools) + countMessageBreakpoints(body.messages as Message[]);
}

/** The OpenAI chat form of a canonical session (tool results become tool messages). */
function toOpenAIChat(messages: readonly Message[]): ChatCompletionCreateParamsNonStreaming['messages'] {
  return messages.flatMap((message): ChatCompletionCreateParamsNonStreaming['messages'] => {
    if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
    if (message.role === 'user') {
      return (message.content as ToolResultBlock[]).map((block) => ({
        role: 'tool' as const,
        tool_call_id: block.tool_use_id,
        content: block.content as string,
      }));
    }
    const text = message.content.flatMap((block) => (block.type === 'text' ? [String(block.text)] : []));
    const calls = message.content.flatMap((block) =>
      block.type === 'tool_use'
        ? [
            {
              id: String(block.id),
              type: 'function' as const,
              function: { name: String(block.name), arguments: JSON.stringify(block.input) },
            },
          ]
        : [],
    );
    return [{ role: 'assistant', content: text.join('\n'), tool_calls: calls }];
  });
}

describe("compactRequest on Codex's default model (tools declared in an input item)", () => {
  const additionalTools = {
    type: 'additional_tools',
    role: 'developer',
    tools: [
      {
        type: 'namespace',
        name: 'functions',
        tools: [{ type: 'custom', name: 'exec', description: 'Run JavaScript.' }],
      },
    ],
  };
  const developer = {
    type: 'message',
    role: 'developer',
    content: [{ type: 'input_text', text: 'You are Codex.' }],
  };
  function codexBody(steps: number) {
    const input: Record<string, unknown>[] = [
      additionalTools,
      developer,
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'Count the lines of every log.' }],
      },
    ];
    for (let step = 1; step <= steps; step++) {
      const call_id = `call_${step}`;
      input.push(
        {
          type: 'custom_tool_call',
          call_id,
          name: 'exec',
          input: `text(await tools.exec_command({cmd: "wc -l log${step}.txt"}));`,
        },
        { type: 'custom_tool_call_output', call_id, output: `${step} log${step}.txt\n`.repeat(300) },
      );
    }
    return { model: 'gpt-6.2-sol', input, stream: true };
  }

  it('keeps the tools item and the developer instructions through a hard compaction', async () => {
    const body = codexBody(8);
    const result = await compactRequest(body, { force: 'hard' });
    expect(result.layer).toBe('hard');
    const input = result.body.input as Record<string, unknown>[];
    expect(input[0]).toEqual(additionalTools);
    expect(input[1]).toEqual(developer);
    expect(input.length).toBeLessThan(body.input.length);
    // The summary names the commands the exec scripts ran.
    expect(JSON.stringify(input)).toContain('wc -l log1.txt');
  });
});
