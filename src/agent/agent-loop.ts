import type {
  Compactor,
  ContentBlock,
  Message,
  ProviderUsage,
  SystemPrompt,
  ToolResultBlock,
  ToolUseBlock,
} from 'agent-compact';
import { promptTokensFromUsage } from 'agent-compact/counters';
import type { AgentStatusHandler } from './agent-status.js';
import { type ChatModel, ModelCallError } from './chat-model.js';
import type { TranscriptEntry } from './session-store.js';
import { type AgentToolDefinition, agentToolDefinitions } from './tool-definitions.js';
import type { ToolRunner } from './tool-runner.js';

/** Where the loop records what happens; a {@link Session} fits, tests may pass their own. */
export interface AgentLoopRecorder {
  /** Every message as it happened (uncompacted), and each compaction. */
  appendTranscript(entries: readonly TranscriptEntry[]): Promise<void>;
  /** The current (compacted) context, after every change. */
  saveContext(messages: readonly Message[]): Promise<void>;
}

/** Options of {@link createAgentLoop}. */
export interface AgentLoopOptions {
  model: ChatModel;
  /** Compacts the context before every model call. */
  compactor: Compactor;
  /** Runs the tool calls. */
  tools: ToolRunner;
  system: SystemPrompt;
  /** The tools the model sees. @default agentToolDefinitions */
  toolDefinitions?: readonly AgentToolDefinition[];
  /** The context to continue (a resumed session). @default [] */
  messages?: readonly Message[];
  /** Where messages and the context are saved. @default nowhere */
  recorder?: AgentLoopRecorder;
  /** The model's context window, for the status line. */
  contextWindow: number;
  /** The upper bound of each answer. @default 8192 */
  maxOutputTokens?: number;
  /** Model calls per {@link AgentLoop.send} before the loop stops. @default 100 */
  maxSteps?: number;
  /** Receives status events (context size, compactions, tool calls). */
  onStatus?: AgentStatusHandler;
}

/** How one {@link AgentLoop.send} ended. */
export interface AgentTurnResult {
  /** `answered`: the model ended its turn; `max-steps`: the step cap stopped it; `interrupted`: the signal fired. */
  outcome: 'answered' | 'max-steps' | 'interrupted';
  /** The text of the model's last message. */
  text: string;
  /** Model calls made. */
  steps: number;
}

/** The agent loop of one session. */
export interface AgentLoop {
  /** The current (compacted) context. */
  readonly messages: readonly Message[];
  /**
   * Adds the user's text (when given) and runs model calls and tools until the model answers
   * without calling a tool, the step cap is reached, or `signal` aborts. After an abort the
   * context is valid and the loop (or a resumed session) can continue.
   */
  send(text: string | undefined, options?: { signal?: AbortSignal }): Promise<AgentTurnResult>;
}

/**
 * The provider-neutral agent loop: before every model call the context goes through
 * `compactor.maybeCompact`, anchored to the usage the provider returned for the previous call.
 *
 * @example
 * const agent = createAgentLoop({ model, compactor, tools, system, contextWindow: 200_000 });
 * const { text } = await agent.send('Add a --verbose flag to the CLI', { signal });
 */
export function createAgentLoop({
  model,
  compactor,
  tools,
  system,
  toolDefinitions = agentToolDefinitions,
  messages: initialMessages = [],
  recorder,
  contextWindow,
  maxOutputTokens = 8192,
  maxSteps = 100,
  onStatus = () => {},
}: AgentLoopOptions): AgentLoop {
  const loop: LoopSettings = {
    model,
    compactor,
    tools,
    system,
    toolDefinitions,
    recorder,
    contextWindow,
    maxOutputTokens,
    maxSteps,
    onStatus,
  };
  const state: LoopState = { context: [...initialMessages] };
  return {
    get messages() {
      return state.context;
    },
    async send(text, { signal } = {}) {
      await closeOpenToolCalls(loop, state, 'not run: the session stopped before this call ran');
      if (text !== undefined) await addUserText(loop, state, text);
      if (state.context.at(-1)?.role !== 'user') {
        return { outcome: 'answered', text: lastAssistantText(state.context), steps: 0 };
      }
      return await runSteps(loop, state, signal);
    },
  };
}

/** The loop's fixed settings: the options with their defaults applied. */
interface LoopSettings {
  model: ChatModel;
  compactor: Compactor;
  tools: ToolRunner;
  system: SystemPrompt;
  toolDefinitions: readonly AgentToolDefinition[];
  recorder: AgentLoopRecorder | undefined;
  contextWindow: number;
  maxOutputTokens: number;
  maxSteps: number;
  onStatus: AgentStatusHandler;
}

/** What the loop carries from one step (and one `send`) to the next. */
interface LoopState {
  context: Message[];
  /** The usage of the previous model call, the compactor's anchor. */
  lastUsage?: ProviderUsage;
  /** A `compact` tool call asked for a hard compaction before the next model call. */
  compactRequest?: { focus?: string };
}

type Compaction = Awaited<ReturnType<Compactor['maybeCompact']>>;
type ModelResponse = Awaited<ReturnType<ChatModel['generate']>>;

const now = () => new Date().toISOString();

async function append(loop: LoopSettings, state: LoopState, message: Message): Promise<void> {
  state.context = [...state.context, message];
  await loop.recorder?.appendTranscript([{ type: 'message', at: now(), message }]);
  await loop.recorder?.saveContext(state.context);
}

async function addUserText(loop: LoopSettings, state: LoopState, text: string): Promise<void> {
  const last = state.context.at(-1);
  if (last?.role === 'user') {
    // Two user messages in a row are not allowed: the text joins the pending one (e.g. tool results).
    const merged: Message = {
      role: 'user',
      content: [...blocksOf(last.content), { type: 'text', text }],
    };
    state.context = [...state.context.slice(0, -1), merged];
    await loop.recorder?.appendTranscript([
      { type: 'message', at: now(), message: { role: 'user', content: text } },
    ]);
    await loop.recorder?.saveContext(state.context);
    return;
  }
  await append(loop, state, { role: 'user', content: text });
}

/** Answers tool calls left without results (a crash between the answer and its results). */
async function closeOpenToolCalls(loop: LoopSettings, state: LoopState, reason: string): Promise<void> {
  const last = state.context.at(-1);
  if (last?.role !== 'assistant') return;
  const open = toolUsesOf(last);
  if (open.length === 0) return;
  await append(loop, state, {
    role: 'user',
    content: open.map((toolUse) => interruptedResult(toolUse, reason)),
  });
}

/** Model calls and tool runs until the model answers, the step cap is reached or `signal` aborts. */
async function runSteps(
  loop: LoopSettings,
  state: LoopState,
  signal: AbortSignal | undefined,
): Promise<AgentTurnResult> {
  for (let step = 1; step <= loop.maxSteps; step += 1) {
    if (signal?.aborted) return await interrupted(loop, state, step - 1, 'before the model call');

    const compaction = await compactBeforeCall(loop, state, step, signal);
    if (compaction === undefined) return await interrupted(loop, state, step - 1, 'during compaction');

    const response = await callModel(loop, state, step, compaction, signal);
    if (response === undefined) return await interrupted(loop, state, step - 1, 'during the model call');

    const assistant = nonEmptyAssistant(response.message);
    await append(loop, state, assistant);
    const answerText = textOf(assistant);
    const toolUses = toolUsesOf(assistant);
    if (answerText !== '')
      loop.onStatus({ type: 'assistant-text', step, text: answerText, final: toolUses.length === 0 });
    if (toolUses.length === 0) return { outcome: 'answered', text: answerText, steps: step };

    await append(loop, state, {
      role: 'user',
      content: await runToolCalls(loop, state, step, toolUses, signal),
    });
    if (signal?.aborted) return await interrupted(loop, state, step, 'while running tools');
  }
  return { outcome: 'max-steps', text: lastAssistantText(state.context), steps: loop.maxSteps };
}

/**
 * Compacts the context before a model call (hard, when a `compact` tool call asked for it) and
 * records a compaction that happened. `undefined` when `signal` aborted the compaction.
 */
async function compactBeforeCall(
  loop: LoopSettings,
  state: LoopState,
  step: number,
  signal: AbortSignal | undefined,
): Promise<Compaction | undefined> {
  let compaction: Compaction;
  try {
    compaction = await loop.compactor.maybeCompact(state.context, {
      system: loop.system,
      usage: state.lastUsage,
      signal,
      ...(state.compactRequest ? { force: 'hard' as const, focus: state.compactRequest.focus } : {}),
    });
  } catch (error) {
    if (signal?.aborted) return undefined;
    throw error;
  }
  state.compactRequest = undefined;
  if (compaction.layer === 'none') return compaction;
  state.context = compaction.messages;
  await loop.recorder?.appendTranscript([
    {
      type: 'compaction',
      at: now(),
      layer: compaction.layer,
      tokensBefore: compaction.tokensBefore,
      tokensAfter: compaction.tokensAfter,
      archived: compaction.archived,
    },
  ]);
  await loop.recorder?.saveContext(state.context);
  loop.onStatus({
    type: 'compaction-end',
    step,
    layer: compaction.layer,
    tokensBefore: compaction.tokensBefore,
    tokensAfter: compaction.tokensAfter,
    archived: compaction.archived.length,
  });
  return compaction;
}

/** Calls the model on the context and reports its usage. `undefined` when the call was aborted. */
async function callModel(
  loop: LoopSettings,
  state: LoopState,
  step: number,
  compaction: Compaction,
  signal: AbortSignal | undefined,
): Promise<ModelResponse | undefined> {
  let response: ModelResponse;
  try {
    response = await loop.model.generate(
      {
        system: loop.system,
        messages: state.context,
        tools: loop.toolDefinitions,
        maxOutputTokens: loop.maxOutputTokens,
      },
      { signal },
    );
  } catch (error) {
    if (signal?.aborted || (error instanceof ModelCallError && error.failure === 'aborted')) return undefined;
    throw error;
  }
  state.lastUsage = response.usage;
  loop.onStatus({
    type: 'model-response',
    step,
    contextTokens: promptTokensFromUsage(response.usage) ?? compaction.tokensAfter,
    contextWindow: loop.contextWindow,
    ...(response.usage?.output_tokens !== undefined || response.usage?.completion_tokens !== undefined
      ? { outputTokens: response.usage.output_tokens ?? response.usage.completion_tokens }
      : {}),
  });
  return response;
}

/** Runs the answer's tool calls in order; after an abort the rest are answered as not run. */
async function runToolCalls(
  loop: LoopSettings,
  state: LoopState,
  step: number,
  toolUses: readonly ToolUseBlock[],
  signal: AbortSignal | undefined,
): Promise<ToolResultBlock[]> {
  const results: ToolResultBlock[] = [];
  for (const toolUse of toolUses) {
    if (signal?.aborted) {
      results.push(interruptedResult(toolUse, 'not run: the user interrupted the step'));
      continue;
    }
    loop.onStatus({ type: 'tool-call', step, name: toolUse.name, summary: summarizeInput(toolUse.input) });
    const run = await loop.tools.run(toolUse, { signal });
    results.push(run.result);
    if (run.compactRequest) state.compactRequest = run.compactRequest;
    loop.onStatus({
      type: 'tool-result',
      step,
      name: toolUse.name,
      isError: run.result.is_error === true,
      summary: summarizeResult(run.result),
    });
  }
  return results;
}

/** Reports and records an interrupted `send`; `steps` is the number of model calls made. */
async function interrupted(
  loop: LoopSettings,
  state: LoopState,
  steps: number,
  where: string,
): Promise<AgentTurnResult> {
  loop.onStatus({ type: 'step-interrupted', step: steps + 1, reason: `stopped by the user ${where}` });
  await loop.recorder?.appendTranscript([{ type: 'interrupted', at: now(), reason: where }]);
  return { outcome: 'interrupted', text: lastAssistantText(state.context), steps };
}

function blocksOf(content: Message['content']): ContentBlock[] {
  return typeof content === 'string' ? (content === '' ? [] : [{ type: 'text', text: content }]) : content;
}

function toolUsesOf(message: Message): ToolUseBlock[] {
  return blocksOf(message.content).filter((block): block is ToolUseBlock => block.type === 'tool_use');
}

/** Providers reject an empty assistant message in the history; an empty answer is kept as a short note. */
function nonEmptyAssistant(message: Message): Message {
  const blocks = blocksOf(message.content).filter(
    (block) => !(block.type === 'text' && (block as { text?: unknown }).text === ''),
  );
  if (blocks.length === 0) return { role: 'assistant', content: [{ type: 'text', text: '(no answer)' }] };
  return { role: 'assistant', content: blocks };
}

function textOf(message: Message): string {
  return blocksOf(message.content)
    .filter((block) => block.type === 'text')
    .map((block) => String((block as { text?: unknown }).text))
    .join('\n')
    .trim();
}

function lastAssistantText(messages: readonly Message[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role === 'assistant') {
      const text = textOf(message);
      if (text !== '') return text;
    }
  }
  return '';
}

function interruptedResult(toolUse: ToolUseBlock, reason: string): ToolResultBlock {
  return {
    type: 'tool_result',
    tool_use_id: toolUse.id,
    content: `${toolUse.name}: ${reason}`,
    is_error: true,
  };
}

function summarizeInput(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const record = input as Record<string, unknown>;
  const key = record.command ?? record.path ?? record.id ?? record.focus;
  const text = typeof key === 'string' ? key : '';
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length > 80 ? `${oneLine.slice(0, 77)}...` : oneLine;
}

function summarizeResult(result: ToolResultBlock): string {
  const content = result.content;
  const text =
    typeof content === 'string'
      ? content
      : (content ?? [])
          .map((part) =>
            part.type === 'text' ? String((part as { text?: unknown }).text) : `[${part.type}]`,
          )
          .join('');
  if (result.is_error) {
    // bash ends with its status ("[exit code 2]", "[timed out …]"); other tools say why on the first line.
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    const status = lines.at(-1) ?? '';
    const line = /^\[.*\]$/.test(status) ? status : (lines[0] ?? '');
    return line.length > 100 ? `${line.slice(0, 97)}...` : line;
  }
  return `${text.split('\n').length} lines, ${Buffer.byteLength(text)} bytes`;
}
