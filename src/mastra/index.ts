/**
 * `agent-compact/mastra`: compaction for Mastra agents (`@mastra/core` 1.x, Node 22.13 or later) as
 * an input processor.
 */
export { AgentCompactProcessor, type AgentCompactProcessorOptions } from './compact-processor.js';
