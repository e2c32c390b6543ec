import { describe, expect, it } from 'vitest';
import { compactToolAnthropic, recallToolAnthropic } from './anthropic/compaction-tools.js';
import * as api from './index.js';
import * as internal from './internal/index.js';
import { compactToolOpenAI, recallToolOpenAI } from './openai/compaction-tools.js';

describe('the public API', () => {
  it('keeps provider shapes in their subpaths and tuning constants in agent-compact/internal', () => {
    for (const name of [
      'recallToolAnthropic',
      'compactToolOpenAI',
      'summaryInstructions',
      'IMAGE_TOKENS',
      'TOOL_ERROR_PREFIX',
    ]) {
      expect(Object.keys(api)).not.toContain(name);
    }
    expect(Object.keys(internal)).toEqual(
      expect.arrayContaining(['summaryInstructions', 'IMAGE_TOKENS', 'TOOL_ERROR_PREFIX']),
    );
  });

  it('exports the retry helpers a custom SummaryModel needs', () => {
    expect(typeof api.callWithRetries).toBe('function');
    expect(typeof api.describeSdkError).toBe('function');
    expect(api.summaryRetryPolicy({}).maxRetries).toBe(2);
  });

  it('shapes the recall and compact tools for each provider from one definition', () => {
    expect(recallToolAnthropic).toEqual({
      name: 'recall',
      description: api.recallTool.description,
      input_schema: api.recallTool.inputSchema,
    });
    expect(compactToolAnthropic.name).toBe('compact');
    expect(recallToolOpenAI).toEqual({
      type: 'function',
      function: {
        name: 'recall',
        description: api.recallTool.description,
        parameters: api.recallTool.inputSchema,
      },
    });
    expect(compactToolOpenAI.function.parameters).toBe(api.compactTool.inputSchema);
  });
});
