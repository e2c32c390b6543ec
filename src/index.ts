// The public API of agent-compact's core: the compactor contract (create, compact, requests,
// errors, stores, the model and counter interfaces, message types, parse/validate/repair), at most
// 60 names (`src/public-api.test.ts` counts them). Building blocks live in subpaths:
// `agent-compact/counters`, `agent-compact/retry`, `agent-compact/recall`, `agent-compact/wire`.
// Nothing here imports outside src/core, so the core runs with no runtime dependencies.

export type {
  ArchiveItem,
  ArchiveItemKind,
  ArchivePutOptions,
  ArchiveStore,
} from './core/archive/archive-store.js';
export { createMemoryArchiveStore } from './core/archive/memory-archive-store.js';
export { createMemorySessionStateStore } from './core/archive/memory-session-state-store.js';
export type {
  CompactorState,
  SaveSessionStateOptions,
  SessionStateStore,
  StoredSessionState,
} from './core/archive/session-state-store.js';
export { createCompactor, maybeCompact } from './core/compactor.js';
export type {
  Compactor,
  CompactorOptions,
  CompactRequestOptions,
  CompactRequestResult,
  CompactResult,
  HardOptions,
  MaybeCompactOptions,
  MicroOptions,
  MidOptions,
} from './core/compactor-options.js';
export { parseConversation, serializeConversation } from './core/conversation/parse-conversation.js';
export {
  type RepairChange,
  type RepairOptions,
  type RepairResult,
  repairMessages,
} from './core/conversation/repair.js';
export { assertValidMessages, validateMessages } from './core/conversation/validate.js';
export type { CompactionEvent, CompactionEventHandler, CompactionLayer } from './core/events.js';
export { CompactError, type CompactErrorCode, type CompactErrorOptions } from './core/model/errors.js';
export type {
  CacheControl,
  ContentBlock,
  Conversation,
  ImageBlock,
  Message,
  ProviderUsage,
  RedactedThinkingBlock,
  SystemPrompt,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from './core/model/messages.js';
export type { ValidationProblem } from './core/model/problems.js';
export type { WireFormat } from './core/model/wire-format.js';
export { compactRequest } from './core/request/compact-request-once.js';
export { createExtractiveSummaryModel } from './core/summary/extractive-summary.js';
export type {
  SummaryCallOptions,
  SummaryModel,
  SummaryRequest,
  SummaryResult,
  SummaryUsage,
} from './core/summary/summary-model.js';
export type { TokenCounter } from './core/tokens/token-counter.js';
export type { ParsedConversation } from './core/wire/parsed-conversation.js';
