import { tool } from '@langchain/core/tools';
import type { ArchiveStore } from '../core/archive/archive-store.js';
import { handleRecall } from '../core/archive/compaction-tools.js';

/**
 * The `recall` tool as a LangChain tool: the agent fetches what a placeholder (`recall r17`) names
 * from the archive the middleware's compactor writes to.
 *
 * @example
 * const archive = createMemoryArchiveStore();
 * const agent = createAgent({ model, tools: [...tools, createRecallTool({ archive, sessionId })], middleware: [agentCompactMiddleware({ archive })] });
 */
export function createRecallTool({ archive, sessionId }: { archive: ArchiveStore; sessionId: string }) {
  return tool(
    async (input: { id: string }) => {
      const original = await handleRecall({ archive, sessionId }, input);
      return typeof original === 'string' ? original : JSON.stringify(original);
    },
    {
      name: 'recall',
      description: 'Return the original content of an item a compaction placeholder names, e.g. "r17".',
      schema: {
        type: 'object',
        properties: { id: { type: 'string', description: 'The id the placeholder names.' } },
        required: ['id'],
      },
    },
  );
}
