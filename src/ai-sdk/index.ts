/**
 * Context compaction for the Vercel AI SDK (`ai` 6 or 7, an optional peer dependency): a
 * middleware for `wrapLanguageModel` that compacts the prompt before every call — a
 * `LanguageModelV4Middleware` for ai 7, a `LanguageModelV3Middleware` for ai 6.
 *
 * @module agent-compact/ai-sdk
 */
export {
  type AISDKSpecificationVersion,
  type CompactionCallOptions,
  type CompactionMiddleware,
  type CompactionMiddlewareModel,
  type CompactionMiddlewareOptions,
  type CompactionUsage,
  createCompactionMiddleware,
} from './compaction-middleware.js';
