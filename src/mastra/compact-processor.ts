import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { ProcessLLMRequestArgs, ProcessLLMRequestResult, Processor } from '@mastra/core/processors';
import {
  type CompactionMiddlewareOptions,
  createCompactionMiddleware,
} from '../ai-sdk/compaction-middleware.js';
import {
  fromCanonicalMessages,
  leadingSystemCount,
  PromptOrigins,
  toCanonicalMessages,
} from '../ai-sdk/prompt-conversion.js';
import { recallTool } from '../core/archive/compaction-tools.js';
import type { Compactor } from '../core/compactor-options.js';
import { repairWithWarnings } from '../integrations/conversation-threads.js';

/** Part types of the AI SDK prompt (v3 and v4) the conversion knows; others are carried whole. */
const KNOWN_PART_TYPES = new Set([
  'text',
  'file',
  'reasoning',
  'reasoning-file',
  'tool-call',
  'tool-result',
  'tool-approval-response',
  'custom',
]);

/** Options of {@link AgentCompactProcessor}: the compactor's, plus how to tell conversations apart. */
export interface AgentCompactProcessorOptions extends CompactionMiddlewareOptions<'v3'> {
  /**
   * Told when the prompt needed repair (a tool call without its result gets a result saying so,
   * as the core repairs) and once per prompt part type the conversion does not know (kept whole).
   */
  onWarning?: (message: string) => void;
  /**
   * Whether the agent offers the model the `recall` tool (`recallTool` and `handleRecall` from
   * `agent-compact/recall`): Mastra does not tell a processor the tools, so archive ids and the
   * recall sentence appear only when this says so.
   * @default false
   */
  recall?: boolean;
}

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
  readonly #onWarning: ((message: string) => void) | undefined;
  readonly #warned = new Set<string>();

  /** The tools the middleware is told of: `recall` when the agent offers it (see the option). */
  readonly #tools: readonly { name: string }[];

  constructor(options: AgentCompactProcessorOptions = {}) {
    const { onWarning, recall = false, ...middlewareOptions } = options;
    this.#middleware = createCompactionMiddleware(middlewareOptions);
    this.#onWarning = onWarning;
    this.#tools = recall ? [{ name: recallTool.name }] : [];
  }

  async processLLMRequest({ prompt, abortSignal }: ProcessLLMRequestArgs): Promise<ProcessLLMRequestResult> {
    // Mastra's prompt is the AI SDK's v2 prompt, whose messages the v3 conversion reads as they are.
    const params = await this.#middleware.transformParams({
      type: 'generate',
      params: {
        prompt: this.#repaired(prompt as LanguageModelV3Prompt),
        tools: this.#tools,
        ...(abortSignal === undefined ? {} : { abortSignal }),
      },
      model: { specificationVersion: 'v3' },
    });
    return { prompt: params.prompt as ProcessLLMRequestArgs['prompt'] };
  }

  /** The compactor of a conversation, once it has been seen. */
  compactorFor(conversationId: string): Compactor | undefined {
    return this.#middleware.compactorFor(conversationId);
  }

  /**
   * The prompt the provider would accept, repaired as the core repairs (Mastra drops a stored call
   * left without its result itself; another processor's prompt may still hold one).
   */
  #repaired(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
    this.#warnAboutUnknownParts(prompt);
    const systemCount = leadingSystemCount(prompt);
    const origins = new PromptOrigins('v3');
    const messages = toCanonicalMessages(prompt.slice(systemCount), origins);
    const repaired = repairWithWarnings(messages, this.#onWarning);
    if (repaired === messages) return prompt;
    return [...prompt.slice(0, systemCount), ...fromCanonicalMessages(repaired, origins)];
  }

  #warnAboutUnknownParts(prompt: LanguageModelV3Prompt): void {
    for (const message of prompt) {
      if (typeof message.content === 'string') continue;
      for (const part of message.content as readonly { type: string }[]) {
        if (KNOWN_PART_TYPES.has(part.type) || this.#warned.has(part.type)) continue;
        this.#warned.add(part.type);
        this.#onWarning?.(
          `agent-compact: prompt part type "${part.type}" is not converted; it is kept whole`,
        );
      }
    }
  }
}
