/**
 * `agent-compact/internal`: the prompt texts and tuning constants the library uses, for tests,
 * tooling and the curious. UNSTABLE: anything here may change or disappear in any release, minor
 * and patch included. Do not build on it; the stable API is `agent-compact` and its adapters.
 * The proxy, the CLI and the lab (simulate, bench, the reference agent) import from here what they
 * use beyond the stable API: the request-level readers and writers and the format registry.
 */

export { COMPACTOR_STATE_SCHEMA } from '../core/archive/session-state-store.js';
export { checkOptions, type OptionRules, sharedCompactorRules } from '../core/check-options.js';
export { defaultThresholds } from '../core/compactor.js';
export { resolveSettings } from '../core/compactor-settings.js';
export { TOOL_ERROR_PREFIX } from '../core/conversation/openai-format.js';
export { conversationFromValue } from '../core/conversation/parse-conversation.js';
export { LEADING_USER_MESSAGE_TEXT, MISSING_TOOL_RESULT_TEXT } from '../core/conversation/repair.js';
export { codexExecCalls } from '../core/ledger/codex-exec-call.js';
export { firstCommandLine } from '../core/ledger/record-messages.js';
export type { RequestConversation } from '../core/model/request.js';
export { MAX_CACHE_BREAKPOINTS } from '../core/request/cache-breakpoints.js';
export { withMessages } from '../core/request/compact-request.js';
export { readRequestConversation } from '../core/request/request-conversation.js';
export { isPlainObject } from '../core/request/request-format.js';
export { extractiveSummary } from '../core/summary/extractive-summary.js';
export {
  bridgeText,
  defaultIdentity,
  type SummarySection,
  summaryAcknowledgement,
  summaryInstructions,
  summarySections,
} from '../core/summary/summary-format.js';
export { SAME_MODEL_PROVIDER } from '../core/summary/summary-model.js';
export {
  BLOCK_OVERHEAD_TOKENS,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
} from '../core/tokens/message-tokens.js';
export { TOOL_OVERHEAD_TOKENS, TOOLS_PREAMBLE_TOKENS } from '../core/tokens/tool-tokens.js';
export { isRecord } from '../core/wire/_internal/validate-helpers.js';
export type { WireDialect } from '../core/wire/dialect.js';
export { dialects } from '../core/wire/dialects.js';
export { geminiFieldName, partsSpelledLike } from '../core/wire/gemini/gemini-field-names.js';
export { workingSetOpen } from '../core/working-set/render-working-set.js';
export { jsonFileLines } from '../importers/_json-lines.js';
export { decodeUtf8 } from '../importers/_utf8-text.js';
export { claudeCodeFromLines } from '../importers/claude-code.js';
export { isTokenizerInstalled, TOKENIZER_INSTALL_COMMAND } from '../tokenizer/load-tokenizer.js';
