import type { ProcessLLMRequestArgs, ProcessLLMRequestResult, Processor } from '@mastra/core/processors';
import {
  type CompactionMiddlewareOptions,
  createCompactionMiddleware,
} from '../ai-sdk/compaction-middleware.js';
import type { Compactor } from '../core/compactor-options.js';

/** Options of {@link AgentCompactProcessor}: the compactor's, plus how to tell conversations apart. */
export type AgentCompactProcessorOptions = CompactionMiddlewareOptions<'v3'>;

/**
 * A Mastra input processor that compacts each provider call's prompt (`processLLMRequest`): what
 * the model sees stays inside its window, while the agent's memory and message list keep every
 * message. One compactor per conversation, continuing from its previous compacted result.
 *
 * @example
 * import { Agent } from '@mastra/core/agent';
 * const agent = new Agent({ name: 'coder', instructions, model, tools, inputProcessors: [new AgentCompactProcessor({ contextWindow: 128_000 })] });
 */
export class AgentCompactProcessor implements Processor<'agent-compact'> {
  readonly id = 'agent-compact' as const;
  readonly name = 'agent-compact';
  readonly #middleware: ReturnType<typeof createCompactionMiddleware<'v3'>>;

  constructor(options: AgentCompactProcessorOptions = {}) {
    this.#middleware = createCompactionMiddleware(options);
  }

  async processLLMRequest({ prompt, abortSignal }: ProcessLLMRequestArgs): Promise<ProcessLLMRequestResult> {
    // Mastra's prompt is the AI SDK's v2 prompt, whose messages the v3 conversion reads as they are.
    const params = await this.#middleware.transformParams({
      type: 'generate',
      params: { prompt, ...(abortSignal === undefined ? {} : { abortSignal }) },
      model: { specificationVersion: 'v3' },
    });
    return { prompt: params.prompt };
  }

  /** The compactor of a conversation, once it has been seen. */
  compactorFor(conversationId: string): Compactor | undefined {
    return this.#middleware.compactorFor(conversationId);
  }
}
