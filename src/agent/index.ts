/**
 * The reference coding agent: a provider-neutral loop that passes its messages through
 * `maybeCompact` before every model call, the tools agents built on the seed's tutorial use
 * (`bash`, `read_file`, `write_file`, `edit_file`) plus `compact` and `recall`, chat models over the
 * official SDKs (optional peers, loaded on first use) and sessions on disk.
 *
 * @module agent-compact/agent
 */
export {
  type AgentLoop,
  type AgentLoopOptions,
  type AgentLoopRecorder,
  type AgentTurnResult,
  createAgentLoop,
} from './agent-loop.js';
export { type AgentSession, type AgentSessionOptions, startAgentSession } from './agent-session.js';
export {
  type AgentStatusEvent,
  type AgentStatusHandler,
  formatAgentStatus,
  formatTokens,
} from './agent-status.js';
export { type BashToolOptions, bashTool, environmentWithoutSecrets } from './bash-tool.js';
export {
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStopReason,
  ModelCallError,
  type ModelCallFailure,
} from './chat-model.js';
export { type ChatSummaryModelOptions, createChatSummaryModel } from './chat-summary-model.js';
export {
  editFileTool,
  type FileToolOptions,
  type ReadFileToolOptions,
  readFileTool,
  writeFileTool,
} from './file-tools.js';
export { createArchive as createSessionArchive } from './session-archive.js';
export {
  createSession,
  newSessionId,
  openSession,
  type Session,
  type SessionInfo,
  type SessionStoreOptions,
  sessionsDirectory,
  type TranscriptEntry,
} from './session-store.js';
export { type AgentPromptOptions, agentIdentity, agentSystemPrompt } from './system-prompt.js';
export {
  type AgentToolDefinition,
  type AgentToolName,
  type AnthropicToolDefinition,
  agentToolDefinitions,
  bashToolDefinition,
  compactToolDefinition,
  editFileToolDefinition,
  type OpenAIToolDefinition,
  readFileToolDefinition,
  recallToolDefinition,
  type ToolInputSchema,
  toAnthropicTool,
  toOpenAITool,
  writeFileToolDefinition,
} from './tool-definitions.js';
export type { ToolOutcome } from './tool-outcome.js';
export {
  type BashApproval,
  createToolRunner,
  type ToolRun,
  type ToolRunner,
  type ToolRunnerOptions,
} from './tool-runner.js';
export {
  type AnthropicChatModelOptions,
  createAnthropicChatModel,
} from './wire/anthropic/anthropic-chat-model.js';
export {
  createGeminiChatModel,
  type GeminiChatModelOptions,
  type GeminiClient,
} from './wire/gemini/gemini-chat-model.js';
export { createOpenAIChatModel, type OpenAIChatModelOptions } from './wire/openai-chat/openai-chat-model.js';
export {
  createOpenAIResponsesChatModel,
  type OpenAIResponsesChatModelOptions,
  toResponsesTool,
} from './wire/responses/openai-responses-chat-model.js';
export {
  type ResolveWorkspacePathOptions,
  resolveWorkspacePath,
  type WorkspacePathResult,
} from './workspace-path.js';
