/** Agent loops over the official SDKs, for driving the proxy in tests and benchmarks. */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { MID_CONVERSATION_SYSTEM_BETA } from '../core/conversation/validate.js';
import type { RecordedRequest, ScriptStep } from '../testing/index.js';

/** A tool output of about `tokens` tokens (4 characters each). */
export function toolOutput(turn: number, tokens = 600): string {
  return `output of step ${turn}\n${'const value = compute(input); // line\n'.repeat(Math.ceil((tokens * 4) / 38))}`;
}

/** True for the request the hard layer sends to the `same` summarizer. */
export function isSummaryRequest(request: Pick<RecordedRequest, 'body'>): boolean {
  return JSON.stringify(request.body.messages ?? request.body.input ?? '').includes('Write a dense summary');
}

/** A script that answers summaries with a summary and everything else with a tool call. */
export function toolCallingScript(request: Pick<RecordedRequest, 'body'>): ScriptStep {
  if (isSummaryRequest(request))
    return '## Task and constraints\nRead the files.\n## Current state\nReading.';
  // A new file each turn, as an agent reading through a codebase does: a file read again would be
  // superseded by micro, and the history would not grow toward the thresholds.
  const turn = requestLength(request.body);
  return {
    type: 'tool-calls',
    text: 'Reading the next file.',
    calls: [{ name: 'read_file', input: { path: `src/file-${turn}.ts` } }],
  };
}

/** How many messages or items the request carries (Anthropic and Chat `messages`, Responses `input`). */
function requestLength(body: Record<string, unknown>): number {
  const list = body.messages ?? body.input;
  return Array.isArray(list) ? list.length : 0;
}

/** Options of the loops. */
export interface LoopOptions {
  turns: number;
  apiKey?: string;
  stream?: boolean;
  /** The first user message, which also tells sessions apart. */
  task?: string;
  headers?: Record<string, string>;
  /** Called with each request body the client sends. */
  onRequest?: (body: Record<string, unknown>) => void;
  /** Claude Code moves one `cache_control` breakpoint to the newest message every turn. */
  moveBreakpoint?: boolean;
  /**
   * A mid-conversation `role: "system"` message after the task, as Claude Code 2.1 sends one (with
   * its `anthropic-beta` header, unless `headers` overrides it).
   */
  systemMessage?: string;
  /** Adaptive thinking with its context management, as Claude Code on its default model asks. */
  thinking?: boolean;
  /** The model the requests name. @default 'claude-test' (no preserved thinking) */
  model?: string;
  /** A history to go on from (a client resuming its conversation) instead of the task alone. */
  resume?: Anthropic.MessageParam[];
}

const readFileTool = {
  name: 'read_file',
  description: 'Read a file',
  input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } },
};

/** What Claude Code adds to a request on its default model (fields newer than the SDK's types). */
const thinkingFields = {
  max_tokens: 32_000,
  thinking: { type: 'adaptive' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
} as unknown as { max_tokens: number };

/** An Anthropic tool loop through `baseURL`; returns the client's final history. */
export async function anthropicLoop(
  baseURL: string,
  options: LoopOptions,
): Promise<Anthropic.MessageParam[]> {
  const client = new Anthropic({
    apiKey: options.apiKey ?? 'test-key',
    baseURL,
    maxRetries: 0,
    timeout: 10_000,
    defaultHeaders: {
      // Claude Code sends its system messages under this beta; the provider rejects them without it.
      ...(options.systemMessage ? { 'anthropic-beta': MID_CONVERSATION_SYSTEM_BETA } : {}),
      ...options.headers,
    },
  });
  const messages: Anthropic.MessageParam[] = options.resume
    ? [...options.resume]
    : [
        { role: 'user', content: [{ type: 'text', text: options.task ?? 'Read every file.' }] },
        ...(options.systemMessage ? [{ role: 'system' as const, content: options.systemMessage }] : []),
      ];
  for (let turn = 0; turn < options.turns; turn += 1) {
    const body = {
      model: options.model ?? 'claude-test',
      max_tokens: 200,
      ...(options.thinking ? thinkingFields : {}),
      system: [
        {
          type: 'text' as const,
          text: 'You are a coding agent.',
          cache_control: { type: 'ephemeral' as const },
        },
      ],
      tools: [readFileTool],
      messages: options.moveBreakpoint ? withBreakpointOnLast(messages) : messages,
    };
    options.onRequest?.(structuredClone(body) as unknown as Record<string, unknown>);
    const message = options.stream
      ? await client.messages.stream(body).finalMessage()
      : await client.messages.create(body);
    messages.push({ role: 'assistant', content: message.content });
    const results = message.content
      .filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')
      .map((block) => ({ type: 'tool_result' as const, tool_use_id: block.id, content: toolOutput(turn) }));
    if (results.length === 0) break;
    messages.push({ role: 'user', content: results });
  }
  return messages;
}

function withBreakpointOnLast(messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  return messages.map((message, index): Anthropic.MessageParam => {
    if (index !== messages.length - 1) return message;
    const content =
      typeof message.content === 'string'
        ? [{ type: 'text' as const, text: message.content }]
        : message.content;
    const last = content.length - 1;
    return {
      ...message,
      content: content.map((block, blockIndex) =>
        blockIndex === last ? { ...block, cache_control: { type: 'ephemeral' as const } } : block,
      ) as Anthropic.ContentBlockParam[],
    } as Anthropic.MessageParam;
  });
}

/** An OpenAI chat tool loop through `baseURL` (the proxy origin plus `/v1`). */
export async function openAIChatLoop(
  baseURL: string,
  options: LoopOptions,
): Promise<OpenAI.ChatCompletionMessageParam[]> {
  const client = new OpenAI({
    apiKey: options.apiKey ?? 'test-key',
    baseURL,
    maxRetries: 0,
    timeout: 10_000,
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
  });
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: options.task ?? 'Read every file.' },
  ];
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'read_file', parameters: readFileTool.input_schema } },
  ];
  for (let turn = 0; turn < options.turns; turn += 1) {
    const body = { model: 'gpt-test', messages, tools };
    options.onRequest?.(structuredClone(body) as unknown as Record<string, unknown>);
    const message = options.stream
      ? (await client.chat.completions.stream({ ...body, stream: true }).finalChatCompletion()).choices[0]
          ?.message
      : (await client.chat.completions.create(body)).choices[0]?.message;
    if (!message) throw new Error('no answer');
    messages.push({
      role: 'assistant',
      content: message.content ?? null,
      tool_calls: message.tool_calls ?? [],
    });
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) break;
    for (const call of calls)
      messages.push({ role: 'tool', tool_call_id: call.id, content: toolOutput(turn) });
  }
  return messages;
}

/** An OpenAI Responses tool loop through `baseURL` (the proxy origin plus `/v1`), as Codex runs it: stateless, whole input each turn. */
export async function responsesLoop(
  baseURL: string,
  options: LoopOptions,
): Promise<OpenAI.Responses.ResponseInputItem[]> {
  const client = new OpenAI({
    apiKey: options.apiKey ?? 'test-key',
    baseURL,
    maxRetries: 0,
    timeout: 10_000,
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
  });
  const input: OpenAI.Responses.ResponseInputItem[] = [
    { role: 'user', content: options.task ?? 'Read every file.' },
  ];
  const tools: OpenAI.Responses.Tool[] = [
    { type: 'function', name: 'read_file', parameters: readFileTool.input_schema, strict: false },
  ];
  for (let turn = 0; turn < options.turns; turn += 1) {
    const body = { model: 'gpt-test', instructions: 'You are a coding agent.', input, tools, store: false };
    options.onRequest?.(structuredClone(body) as unknown as Record<string, unknown>);
    const response = options.stream
      ? await client.responses.stream(body).finalResponse()
      : await client.responses.create(body);
    const calls = response.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
    input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
    if (calls.length === 0) break;
    for (const call of calls)
      input.push({ type: 'function_call_output', call_id: call.call_id, output: toolOutput(turn) });
  }
  return input;
}

/** A {@link toolCallingScript} whose summaries answer late, and what happened meanwhile. */
export interface SlowSummaryScript {
  script: (request: Pick<RecordedRequest, 'body'>) => Promise<ScriptStep>;
  /** Agent requests the server answered while a summary was still being written. */
  readonly requestsDuringSummary: number;
  /** Summary requests the server received. */
  readonly summaries: number;
}

/**
 * Summaries answer once `agentRequests` agent requests have arrived after them (or after
 * `timeoutMs`, so a proxy that waits for its summary fails the test instead of hanging it).
 */
export function slowSummaryScript(agentRequests = 2, timeoutMs = 3000): SlowSummaryScript {
  let pending: { seen: number; release: () => void } | undefined;
  const state = { requestsDuringSummary: 0, summaries: 0 };
  return {
    get requestsDuringSummary() {
      return state.requestsDuringSummary;
    },
    get summaries() {
      return state.summaries;
    },
    async script(request) {
      if (!isSummaryRequest(request)) {
        if (pending) {
          state.requestsDuringSummary += 1;
          pending.seen += 1;
          if (pending.seen >= agentRequests) pending.release();
        }
        return toolCallingScript(request);
      }
      state.summaries += 1;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        pending = {
          seen: 0,
          release: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
      pending = undefined;
      return toolCallingScript(request);
    },
  };
}
