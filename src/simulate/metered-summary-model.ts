/**
 * A {@link SummaryModel} wrapper that records every call, so the replay can bill summary calls and
 * time the waits they cause: the request as sent (system and messages) and the text that came back.
 */
import type { SummaryModel, SummaryRequest, SummaryUsage, SystemPrompt } from 'agent-compact';

/** One recorded summary call. */
export interface SummaryCall {
  system: SystemPrompt | undefined;
  messages: SummaryRequest['messages'];
  /** The summary text returned. */
  text: string;
  /** Usage the model reported, when it did (the extractive stand-in reports none). */
  usage: SummaryUsage | undefined;
}

/** A summary model that records its calls until they are drained. */
export interface MeteredSummaryModel extends SummaryModel {
  /** The calls made since the previous drain, oldest first. */
  drain(): SummaryCall[];
}

/**
 * Wraps a summary model so every call is recorded.
 *
 * @example
 * const metered = createMeteredSummaryModel(createExtractiveSummaryModel());
 * await compactor.maybeCompact(messages);
 * for (const call of metered.drain()) console.log(call.text.length);
 */
export function createMeteredSummaryModel(inner: SummaryModel): MeteredSummaryModel {
  let calls: SummaryCall[] = [];
  return {
    specificationVersion: 'v1',
    provider: inner.provider,
    modelId: inner.modelId,
    ...(inner.contextWindow === undefined ? {} : { contextWindow: inner.contextWindow }),
    async summarize(request, options) {
      const result = await inner.summarize(request, options);
      calls.push({
        system: request.system,
        messages: request.messages,
        text: result.text,
        usage: result.usage,
      });
      return result;
    },
    drain() {
      const drained = calls;
      calls = [];
      return drained;
    },
  };
}
