import type { SummaryModel } from 'agent-compact';
import { CompactError } from 'agent-compact';
import type { ChatModel } from './chat-model.js';
import type { AgentToolDefinition } from './tool-definitions.js';

/** Options of {@link createChatSummaryModel}. */
export interface ChatSummaryModelOptions {
  /** The agent's own model; summaries then reuse its cached prompt prefix. */
  model: ChatModel;
  /**
   * The agent's tools. Sent unchanged because a history holding `tool_use` blocks must come with
   * its tool definitions, and an identical prefix keeps the provider's prompt cache.
   */
  tools: readonly AgentToolDefinition[];
  /** The model's context window; larger histories are summarized in chunks by the hard layer. */
  contextWindow?: number;
}

/**
 * A `SummaryModel` over the agent's {@link ChatModel}, for the hard layer. An answer without text
 * (e.g. the model called a tool instead) fails with `SUMMARY_FAILED`, so the compactor retries and
 * then falls back to its extractive summary.
 *
 * @example
 * const compactor = createCompactor({ summarizer: createChatSummaryModel({ model, tools: agentToolDefinitions }) });
 */
export function createChatSummaryModel({
  model,
  tools,
  contextWindow,
}: ChatSummaryModelOptions): SummaryModel {
  return {
    specificationVersion: 'v1',
    provider: model.provider,
    modelId: model.modelId,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    async summarize({ system, messages, maxOutputTokens }, { signal } = {}) {
      let response: Awaited<ReturnType<ChatModel['generate']>>;
      try {
        response = await model.generate(
          { system: system ?? '', messages, tools, maxOutputTokens, toolChoice: 'none' },
          signal ? { signal } : {},
        );
      } catch (error) {
        throw new CompactError(
          `summary call failed: ${error instanceof Error ? error.message : String(error)}`,
          {
            code: signal?.aborted ? 'ABORTED' : 'SUMMARY_FAILED',
            cause: error,
          },
        );
      }
      const content = response.message.content;
      const text = (
        typeof content === 'string'
          ? content
          : content
              .map((block) => (block.type === 'text' ? String((block as { text?: unknown }).text) : ''))
              .join('')
      ).trim();
      if (text === '') {
        throw new CompactError('the model answered the summary request without text', {
          code: 'SUMMARY_FAILED',
        });
      }
      const usage = response.usage;
      return {
        text,
        ...(usage
          ? {
              usage: {
                inputTokens: usage.input_tokens ?? usage.prompt_tokens,
                outputTokens: usage.output_tokens ?? usage.completion_tokens,
              },
            }
          : {}),
      };
    },
  };
}
