/**
 * Context compaction for the Vercel AI SDK (`ai` v6, an optional peer dependency): a
 * `LanguageModelV3Middleware` for `wrapLanguageModel` that compacts the prompt before every call.
 *
 * @module agent-compact/ai-sdk
 */
export {
  type CompactionMiddleware,
  type CompactionMiddlewareOptions,
  createCompactionMiddleware,
} from './compaction-middleware.js';
