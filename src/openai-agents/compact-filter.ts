import {
  type CallModelInputFilter,
  type CallModelInputFilterArgs,
  type ModelInputData,
  RunContext,
} from '@openai/agents';
import type { Compactor } from '../core/compactor-options.js';
import { type AgentsCompactionOptions, AgentsConversations } from './conversation-compaction.js';
import type { AgentItem } from './item-conversion.js';

/** Options of {@link agentCompactFilter}. */
export interface AgentCompactFilterOptions extends AgentsCompactionOptions {
  /**
   * Tells conversations apart. By default a call continues the conversation (same instructions and
   * first item) whose last call it repeats and extends, or whose last call's newest two items it
   * still holds in a row (earlier ones dropped or rewritten), so the same conversation keeps its
   * compactor across `run` calls and two that open alike never share one.
   */
  conversationId?: (args: CallModelInputFilterArgs) => string | undefined;
}

/** A `callModelInputFilter` with access to each conversation's compactor. */
export type AgentCompactFilter = CallModelInputFilter & {
  compactorFor(conversationId: string): Compactor | undefined;
};

/**
 * A `callModelInputFilter` that compacts what each model call sees; the run's items and any
 * session keep the whole history. Unknown item types (hosted tools, computer calls) pass through.
 *
 * @example
 * import { Agent, run } from '@openai/agents';
 * const result = await run(agent, 'Fix the failing test', {
 *   callModelInputFilter: agentCompactFilter({ contextWindow: 128_000 }),
 * });
 */
export function agentCompactFilter(options: AgentCompactFilterOptions = {}): AgentCompactFilter {
  const { conversationId, ...compaction } = options;
  const conversations = new AgentsConversations(compaction);
  const filter = async (args: CallModelInputFilterArgs): Promise<ModelInputData> => {
    const { input, instructions } = args.modelData;
    const id = conversationId?.(args);
    const compacted = await conversations.compactItems(input as unknown as AgentItem[], {
      ...(instructions === undefined ? {} : { instructions }),
      ...(id === undefined ? {} : { conversationId: id }),
      toolNames: () => toolNamesOf(args),
    });
    return { ...args.modelData, input: compacted as unknown as ModelInputData['input'] };
  };
  return Object.assign(filter, { compactorFor: (id: string) => conversations.compactorFor(id) });
}

/**
 * The names of the tools the agent offers the model: its MCP servers' and its enabled tools, as
 * the runner asks for them (`getAllTools`); its `tools` alone when that fails (the run will say
 * why), so an MCP server's `recall` may then go unseen.
 */
async function toolNamesOf({ agent, context }: CallModelInputFilterArgs): Promise<readonly string[]> {
  const listed = agent.tools ?? [];
  let tools: readonly { name: string }[] = listed;
  try {
    if (typeof agent.getAllTools === 'function') tools = await agent.getAllTools(new RunContext(context));
  } catch {
    tools = listed;
  }
  return tools.map((tool) => tool.name);
}
