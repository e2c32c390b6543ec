/**
 * `agent-compact/recall`: the `recall` and `compact` tools an agent offers its model, their
 * handlers, and the full conversation rebuilt from the archive. Provider-shaped tool definitions
 * are in `agent-compact/anthropic` and `agent-compact/openai`.
 */

export {
  type CompactionToolDefinition,
  compactTool,
  handleRecall,
  parseCompactInput,
  recallTool,
} from '../core/archive/compaction-tools.js';
export { rebuildConversation } from '../core/archive/rebuild.js';
