/**
 * `agent-compact/openai-agents`: compaction for the OpenAI Agents SDK (`@openai/agents`), as a
 * `callModelInputFilter` (stateless for the SDK, per model call) or a `Session` wrapper.
 */
export {
  type AgentCompactFilter,
  type AgentCompactFilterOptions,
  agentCompactFilter,
} from './compact-filter.js';
export { AgentCompactSession, type AgentCompactSessionOptions } from './compact-session.js';
export type { AgentsCompactionOptions } from './conversation-compaction.js';
