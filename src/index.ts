// The public API of agent-compact's core. Every export is listed by name; nothing here imports
// outside src/core, so the core runs with no runtime dependencies.

export type { ArchiveItem, ArchiveItemKind, ArchiveStore } from './core/archive/archive-store.js';
export { groupItemsBySession } from './core/archive/archive-store.js';
export {
  type CompactionToolDefinition,
  compactTool,
  handleRecall,
  parseCompactInput,
  recallTool,
} from './core/archive/compaction-tools.js';
export { createMemoryArchiveStore } from './core/archive/memory-archive-store.js';
export { createMemorySessionStateStore } from './core/archive/memory-session-state-store.js';
export { rebuildConversation } from './core/archive/rebuild.js';
export {
  type AnchoredCounterState,
  COMPACTOR_STATE_SCHEMA,
  type CompactorState,
  type SaveSessionStateOptions,
  type SessionStateStore,
  type StoredSessionState,
} from './core/archive/session-state-store.js';
export { createCompactor, defaultThresholds, maybeCompact } from './core/compactor.js';
export type {
  Compactor,
  CompactorOptions,
  CompactResult,
  HardOptions,
  MaybeCompactOptions,
  MicroOptions,
  MidOptions,
} from './core/compactor-options.js';
export {
  type FromOpenAIResult,
  fromOpenAIMessages,
  type OpenAISystemRole,
  type ToOpenAIOptions,
  toOpenAIMessages,
} from './core/conversation/openai-format.js';
export type {
  OpenAIAssistantMessage,
  OpenAIChatMessage,
  OpenAIContentPart,
  OpenAISystemMessage,
  OpenAIToolCall,
  OpenAIToolMessage,
  OpenAIUserMessage,
} from './core/conversation/openai-types.js';
export {
  type ConversationLayout,
  detectFormat,
  type ParseConversationOptions,
  type ParsedConversation,
  parseConversation,
  type SerializeConversationOptions,
  serializeConversation,
} from './core/conversation/parse-conversation.js';
export {
  type RepairChange,
  type RepairChangeKind,
  type RepairResult,
  repairMessages,
} from './core/conversation/repair.js';
export {
  type FromResponsesOptions,
  type FromResponsesResult,
  fromResponsesInput,
  RESPONSES_DATA_KEY,
  type ResponsesBlockData,
  responsesDataOf,
  toResponsesInput,
} from './core/conversation/responses-format.js';
export type {
  ResponsesCallOutputItem,
  ResponsesCompactionItem,
  ResponsesContentPart,
  ResponsesCustomToolCallItem,
  ResponsesFunctionCallItem,
  ResponsesInput,
  ResponsesInputItem,
  ResponsesItemReference,
  ResponsesMessageItem,
  ResponsesOtherItem,
  ResponsesReasoningItem,
} from './core/conversation/responses-types.js';
export {
  type CacheControl,
  type ContentBlock,
  type Conversation,
  contentBlocks,
  type ImageBlock,
  isBlock,
  isKnownBlock,
  type KnownBlock,
  type KnownBlockType,
  type Message,
  type MessageFormat,
  type ProviderData,
  type ProviderUsage,
  promptTokensFromUsage,
  type RedactedThinkingBlock,
  type SystemPrompt,
  type TextBlock,
  type ThinkingBlock,
  type ToolResultBlock,
  type ToolResultContentBlock,
  type ToolUseBlock,
  type UnknownBlock,
} from './core/conversation/types.js';
export {
  allowsSystemMessages,
  assertValidMessages,
  MID_CONVERSATION_SYSTEM_BETA,
  type ValidateOptions,
  type ValidationProblem,
  type ValidationRule,
  validateMessages,
} from './core/conversation/validate.js';
export { CompactError, type CompactErrorCode, type CompactErrorOptions } from './core/errors.js';
export type { CompactionEvent, CompactionEventHandler, CompactionLayer } from './core/events.js';
export { MAX_CACHE_BREAKPOINTS } from './core/request/cache-breakpoints.js';
export type { CompactRequestOptions, CompactRequestResult } from './core/request/compact-request.js';
export { compactRequest } from './core/request/compact-request-once.js';
export type { RequestBody } from './core/request/request-conversation.js';
export { detectRequestFormat, type RequestFormat } from './core/request/request-format.js';
export { createExtractiveSummaryModel, extractiveSummary } from './core/summary/extractive-summary.js';
export { defaultIdentity } from './core/summary/summary-format.js';
export type {
  SummaryCallOptions,
  SummaryModel,
  SummaryRequest,
  SummaryResult,
  SummaryUsage,
} from './core/summary/summary-model.js';
// For authors of a custom SummaryModel: the retry loop the SDK adapters use.
export {
  type CallWithRetriesOptions,
  callWithRetries,
  describeSdkError,
  retryAfterMsFromHeaders,
  type SummaryAttemptFailure,
  type SummaryRetryOptions,
  type SummaryRetryPolicy,
  summaryRetryPolicy,
} from './core/summary/summary-retry.js';
export {
  type AnchoredCalibration,
  type AnchoredCounter,
  type AnchoredCounterOptions,
  createAnchoredCounter,
} from './core/tokens/anchored-counter.js';
export { createHeuristicCounter } from './core/tokens/heuristic-counter.js';
export { createIncrementalCounter, type IncrementalCounter } from './core/tokens/incremental-counter.js';
export { createMemoizedCounter, type MemoizedCounterOptions } from './core/tokens/memoized-counter.js';
export { countMessageTokens, countSystemTokens } from './core/tokens/message-tokens.js';
export type { TokenCounter } from './core/tokens/token-counter.js';
export { countToolTokens, type ToolDefinition } from './core/tokens/tool-tokens.js';
export {
  type FromGeminiOptions,
  type FromGeminiResult,
  fromGeminiContents,
  GEMINI_DATA_KEY,
  type GeminiBlockData,
  geminiDataOf,
} from './core/wire/gemini/gemini-format.js';
export type { GeminiContent, GeminiPart, GeminiUsageMetadata } from './core/wire/gemini/gemini-types.js';
export { toGeminiContents } from './core/wire/gemini/gemini-write.js';
