/**
 * `agent-compact/wire`: each provider's wire format beside the core's message model: the OpenAI
 * Chat, Responses and Gemini message types, conversions to and from them, the per-format data a
 * block keeps for a lossless round trip, block guards and format detection, and `WireFormat`, the
 * one name of the formats.
 */

export {
  type FromOpenAIResult,
  fromOpenAIMessages,
  type ToOpenAIOptions,
  toOpenAIMessages,
} from '../core/conversation/openai-format.js';
export type {
  OpenAIAssistantMessage,
  OpenAIChatMessage,
  OpenAIContentPart,
  OpenAISystemMessage,
  OpenAISystemRole,
  OpenAIToolCall,
  OpenAIToolMessage,
  OpenAIUserMessage,
} from '../core/conversation/openai-types.js';
export { detectFormat, type ParseConversationOptions } from '../core/conversation/parse-conversation.js';
export type { RepairChangeKind } from '../core/conversation/repair.js';
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
} from '../core/conversation/responses-types.js';
export {
  ANTHROPIC_BETAS,
  allowsSystemMessages,
  MID_CONVERSATION_SYSTEM_BETA,
  type ValidateOptions,
} from '../core/conversation/validate.js';
export {
  contentBlocks,
  isBlock,
  isKnownBlock,
  type KnownBlock,
  type KnownBlockType,
  type ProviderData,
  type UnknownBlock,
} from '../core/model/messages.js';
export type { ValidationRule } from '../core/model/problems.js';
export type { RequestBody } from '../core/model/request.js';
export { WIRE_FORMATS, type WireFormat } from '../core/model/wire-format.js';
export { detectRequestFormat } from '../core/request/request-format.js';
export type { AnthropicBetaShapes } from '../core/wire/anthropic/anthropic-betas.js';
export { checksThinkingPrefix, withoutThinking } from '../core/wire/anthropic/preserved-thinking.js';
export { geminiStatusName } from '../core/wire/gemini/gemini-dialect.js';
export {
  type FromGeminiOptions,
  type FromGeminiResult,
  fromGeminiContents,
  GEMINI_DATA_KEY,
  type GeminiBlockData,
  geminiDataOf,
} from '../core/wire/gemini/gemini-format.js';
export type { GeminiContent, GeminiPart, GeminiUsageMetadata } from '../core/wire/gemini/gemini-types.js';
export { toGeminiContents } from '../core/wire/gemini/gemini-write.js';
export type { ConversationLayout, SerializeConversationOptions } from '../core/wire/parsed-conversation.js';
export {
  type FromResponsesOptions,
  type FromResponsesResult,
  fromResponsesInput,
  RESPONSES_DATA_KEY,
  type ResponsesBlockData,
  responsesDataOf,
  toResponsesInput,
} from '../core/wire/responses/responses-format.js';
