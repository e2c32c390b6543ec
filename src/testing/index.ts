/**
 * Test doubles for agent-compact: a scripted model server on 127.0.0.1 that speaks the Anthropic
 * Messages, OpenAI Chat Completions and OpenAI Responses HTTP APIs, so tests drive the real SDKs
 * without a network; and a private `redis-server` on a free port for tests of the Redis stores.
 *
 * @module @agent-compact/testing
 */
export { estimateRequestTokens, estimateTokens } from './prompt-usage.js';
export { type RedisServer, type RedisServerOptions, startRedisServer } from './redis-server.js';
export type {
  RecordedRequest,
  ResponseOutcome,
  Script,
  ScriptedToolCall,
  ScriptStep,
} from './script.js';
export {
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from './scripted-model-server.js';
