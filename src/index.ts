export type { ArchiveItem, ArchiveItemKind, ArchiveStore } from './core/archive-store.js';
export type {
  Compactor,
  CompactorOptions,
  CompactResult,
  HardOptions,
  MaybeCompactOptions,
  MicroOptions,
  MidOptions,
} from './core/compactor-options.js';
export { CompactError, type CompactErrorCode, type CompactErrorOptions } from './core/errors.js';
export type { CompactionEvent, CompactionEventHandler, CompactionLayer } from './core/events.js';
export { createMemoryArchiveStore } from './core/memory-archive-store.js';
export type {
  SummaryCallOptions,
  SummaryModel,
  SummaryRequest,
  SummaryResult,
  SummaryUsage,
} from './core/summary-model.js';
export type { TokenCounter } from './core/token-counter.js';
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
} from './core/types.js';
