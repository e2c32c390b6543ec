import { realpath } from 'node:fs/promises';
import type { ArchiveStore, CompactionEventHandler, Compactor, SessionStateStore } from 'agent-compact';
import { createCompactor, createMemoryArchiveStore } from 'agent-compact';
import { type AgentLoop, createAgentLoop } from './agent-loop.js';
import type { AgentStatusHandler } from './agent-status.js';
import type { ChatModel } from './chat-model.js';
import { createChatSummaryModel } from './chat-summary-model.js';
import { createSession, openSession, type Session } from './session-store.js';
import { agentIdentity, agentSystemPrompt } from './system-prompt.js';
import { agentToolDefinitions } from './tool-definitions.js';
import { type BashApproval, createToolRunner } from './tool-runner.js';

/** Options of {@link startAgentSession}. */
export interface AgentSessionOptions {
  /** The workspace root: the tools' working directory and home of `.agent-compact/sessions/`. */
  workspace: string;
  model: ChatModel;
  /** Continue this session instead of starting a new one. */
  resumeId?: string;
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Token thresholds; default: fractions of `contextWindow` (see `createCompactor`). */
  thresholds?: { mid?: number; hard?: number };
  /** Who writes hard summaries: the agent's own model, or the offline extractive summarizer. @default 'model' */
  summarizer?: 'model' | 'extractive';
  /**
   * Write hard summaries in the background while the agent keeps working (`hard: { background:
   * true }`); the agent waits only when its context passes the background limit first.
   * @default false
   */
  backgroundSummaries?: boolean;
  /** Whether `bash` runs. @default { mode: 'allow' } */
  bashApproval?: BashApproval;
  /** `bash` timeout in milliseconds. @default 120000 */
  bashTimeoutMs?: number;
  /** Model calls per task. @default 100 */
  maxSteps?: number;
  /** The upper bound of each answer. @default 8192 */
  maxOutputTokens?: number;
  /** API keys: redacted from tool results, the transcript and the saved context. @default [] */
  secrets?: readonly string[];
  /** Builds the session's archive store from its directory. @default an in-memory store */
  createArchive?: (directory: string) => ArchiveStore;
  /** Where the compactor keeps its state between processes (e.g. Redis). @default in the process */
  stateStore?: SessionStateStore;
  /** Status events of the loop. */
  onStatus?: AgentStatusHandler;
  /** Compaction events of the compactor. */
  onCompactionEvent?: CompactionEventHandler;
}

/** A ready agent: its session on disk, its compactor and its loop. */
export interface AgentSession {
  session: Session;
  compactor: Compactor;
  agent: AgentLoop;
  /** The workspace's real path. */
  workspace: string;
  /** True when an existing session was opened. */
  resumed: boolean;
}

/**
 * Starts (or resumes) a reference-agent session: session directory, archive, compactor (thresholds,
 * identity, summarizer), tool runner and loop, wired together.
 *
 * @example
 * const { agent, session } = await startAgentSession({
 *   workspace: process.cwd(),
 *   model: createAnthropicChatModel({ model: 'claude-sonnet-5-5', apiKey }),
 *   contextWindow: 200_000,
 *   createArchive: (directory) => createFileArchiveStore({ directory }),
 * });
 * const { text } = await agent.send('Fix the failing test');
 */
export async function startAgentSession({
  workspace: workspaceOption,
  model,
  resumeId,
  contextWindow,
  thresholds,
  summarizer = 'model',
  backgroundSummaries = false,
  bashApproval = { mode: 'allow' },
  bashTimeoutMs,
  maxSteps,
  maxOutputTokens = 8192,
  secrets = [],
  createArchive = () => createMemoryArchiveStore(),
  stateStore,
  onStatus,
  onCompactionEvent,
}: AgentSessionOptions): Promise<AgentSession> {
  const workspace = await realpath(workspaceOption);
  const session =
    resumeId === undefined
      ? await createSession({ workspace, secrets, provider: model.provider, model: model.modelId })
      : await openSession({ workspace, secrets, id: resumeId });
  const tools = agentToolDefinitions;
  const archive = createArchive(session.archiveDirectory);
  const compactor = createSessionCompactor({
    workspace,
    sessionId: session.id,
    archive,
    model,
    contextWindow,
    maxOutputTokens,
    thresholds,
    summarizer,
    backgroundSummaries,
    stateStore,
    onCompactionEvent,
  });
  const runner = createToolRunner({
    workspace,
    archive,
    sessionId: session.id,
    bashApproval,
    ...(bashTimeoutMs !== undefined ? { bashTimeoutMs } : {}),
    secrets,
  });
  const agent = createAgentLoop({
    model,
    compactor,
    tools: runner,
    system: agentSystemPrompt({ workspace, tools }),
    toolDefinitions: tools,
    messages: session.context,
    recorder: session,
    contextWindow,
    maxOutputTokens,
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(onStatus ? { onStatus } : {}),
  });
  return { session, compactor, agent, workspace, resumed: resumeId !== undefined };
}

/**
 * The session's compactor: thresholds from the window unless given, the agent's identity (what the
 * model still knows of itself once its history is a summary), and the agent's own model as the
 * summarizer unless told otherwise.
 */
function createSessionCompactor({
  workspace,
  sessionId,
  archive,
  model,
  contextWindow,
  maxOutputTokens,
  thresholds,
  summarizer,
  backgroundSummaries,
  stateStore,
  onCompactionEvent,
}: Pick<
  AgentSessionOptions,
  'model' | 'contextWindow' | 'thresholds' | 'stateStore' | 'onCompactionEvent'
> & {
  workspace: string;
  sessionId: string;
  archive: ArchiveStore;
  maxOutputTokens: number;
  summarizer: 'model' | 'extractive';
  backgroundSummaries: boolean;
}): Compactor {
  const tools = agentToolDefinitions;
  const hasThresholds = thresholds?.mid !== undefined || thresholds?.hard !== undefined;
  return createCompactor({
    contextWindow,
    reserveOutputTokens: maxOutputTokens,
    ...(hasThresholds ? { thresholds } : {}),
    archive,
    ...(stateStore ? { stateStore } : {}),
    sessionId,
    identity: agentIdentity({ workspace, tools }),
    ...(summarizer === 'model'
      ? { summarizer: createChatSummaryModel({ model, tools, contextWindow }) }
      : {}),
    ...(backgroundSummaries ? { hard: { background: true } } : {}),
    ...(onCompactionEvent ? { onEvent: onCompactionEvent } : {}),
  });
}
