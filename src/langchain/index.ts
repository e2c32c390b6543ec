/**
 * `agent-compact/langchain`: compaction for LangChain.js agents (`createAgent` from `langchain` 1.x)
 * as a middleware, converting `HumanMessage` / `AIMessage` (`tool_calls`) / `ToolMessage` /
 * `SystemMessage` to the canonical model and back.
 */
export { type AgentCompactMiddlewareOptions, agentCompactMiddleware } from './compact-middleware.js';
export { createRecallTool } from './recall-tool.js';
