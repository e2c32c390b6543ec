import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { compactToolAnthropic, recallToolAnthropic } from './anthropic/compaction-tools.js';
import * as counters from './counters/index.js';
import * as api from './index.js';
import * as internal from './internal/index.js';
import { compactToolOpenAI, recallToolOpenAI } from './openai/compaction-tools.js';
import * as recall from './recall/index.js';
import * as retry from './retry/index.js';
import * as wire from './wire/index.js';

/** The bound: the root keeps the compactor contract, building blocks go to subpaths. */
const MAX_ROOT_EXPORTS = 60;

/** Every name the root exports, values and types, as the TypeScript checker sees them. */
let rootNames: string[] | undefined;
function rootExportNames(): string[] {
  if (rootNames) return rootNames;
  const entry = resolve(import.meta.dirname, 'index.ts');
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  rootNames = checker.getExportsOfModule(moduleSymbol).map((symbol) => symbol.name);
  return rootNames;
}

describe('the public API', () => {
  it(`keeps the root at most ${MAX_ROOT_EXPORTS} names, counting types, with the compactor contract in it`, () => {
    const names = rootExportNames();
    expect(names.length).toBeGreaterThan(0);
    expect(names.length).toBeLessThanOrEqual(MAX_ROOT_EXPORTS);
    expect(names).toEqual(
      expect.arrayContaining([
        'createCompactor',
        'maybeCompact',
        'compactRequest',
        'CompactError',
        'createMemoryArchiveStore',
        'createMemorySessionStateStore',
        'SummaryModel',
        'TokenCounter',
        'Message',
        'parseConversation',
        'validateMessages',
        'repairMessages',
      ]),
    );
  });

  it('moves retry helpers, counter building blocks, wire types and constants out of the root', () => {
    const moved = {
      retry: ['callWithRetries', 'describeSdkError', 'retryAfterMsFromHeaders', 'summaryRetryPolicy'],
      counters: ['createAnchoredCounter', 'createHeuristicCounter', 'countMessageTokens', 'countToolTokens'],
      wire: ['fromOpenAIMessages', 'toResponsesInput', 'fromGeminiContents', 'isKnownBlock', 'detectFormat'],
      recall: ['recallTool', 'compactTool', 'handleRecall', 'rebuildConversation'],
      internal: ['COMPACTOR_STATE_SCHEMA', 'MAX_CACHE_BREAKPOINTS', 'defaultThresholds', 'extractiveSummary'],
    };
    const subpaths = { retry, counters, wire, recall, internal };
    for (const [subpath, names] of Object.entries(moved)) {
      for (const name of names) {
        expect(Object.keys(api), `${name} left the root`).not.toContain(name);
        expect(Object.keys(subpaths[subpath as keyof typeof subpaths]), `${name} in ${subpath}`).toContain(
          name,
        );
      }
    }
    expect(rootExportNames()).not.toEqual(expect.arrayContaining(['OpenAIChatMessage']));
    expect(rootExportNames()).not.toEqual(expect.arrayContaining(['ResponsesInputItem']));
  });

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

  it('exports the retry helpers a custom SummaryModel needs from agent-compact/retry', () => {
    expect(typeof retry.callWithRetries).toBe('function');
    expect(typeof retry.describeSdkError).toBe('function');
    expect(retry.summaryRetryPolicy({}).maxRetries).toBe(2);
  });

  it('shapes the recall and compact tools for each provider from one definition', () => {
    expect(recallToolAnthropic).toEqual({
      name: 'recall',
      description: recall.recallTool.description,
      input_schema: recall.recallTool.inputSchema,
    });
    expect(compactToolAnthropic.name).toBe('compact');
    expect(recallToolOpenAI).toEqual({
      type: 'function',
      function: {
        name: 'recall',
        description: recall.recallTool.description,
        parameters: recall.recallTool.inputSchema,
      },
    });
    expect(compactToolOpenAI.function.parameters).toBe(recall.compactTool.inputSchema);
  });
});
