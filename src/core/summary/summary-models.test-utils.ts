/** Summary models for tests of the compactor. */
import type { SummaryModel, SummaryResult } from './summary-model.js';

/** A summary model whose every call answers `answer()` (or throws what it throws), counted in `calls`. */
export function countingModel(answer: () => SummaryResult, modelId = 'm'): SummaryModel & { calls: number } {
  const model = {
    specificationVersion: 'v1' as const,
    provider: 'test',
    modelId,
    calls: 0,
    summarize: async () => {
      model.calls += 1;
      return answer();
    },
  };
  return model;
}
