import type { LanguageModelV3GenerateResult, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { CompactionEvent } from '../core/events.js';
import { createCompactionMiddleware } from './compaction-middleware.js';

/** A mock answer calling one tool, without usage, so the compactor counts the prompt itself. */
function callOf(id: string, toolName: string, input: Record<string, unknown>): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    },
    warnings: [],
  };
}

const pathInput = jsonSchema<{ path: string }>({
  type: 'object',
  properties: { path: { type: 'string' } },
  required: ['path'],
});
const tools = {
  read_file: tool({
    description: 'Reads a file',
    inputSchema: pathInput,
    execute: async ({ path }) => `// ${path}\n${'export const value = compute(input);\n'.repeat(120)}`,
  }),
  write_todos: tool({
    description: 'Replaces the todo list',
    inputSchema: jsonSchema<{ todos: string[] }>({
      type: 'object',
      properties: { todos: { type: 'array', items: { type: 'string' } } },
      required: ['todos'],
    }),
    execute: async () => 'Todo list updated.',
  }),
};

const text = (prompt: LanguageModelV3Prompt) => JSON.stringify(prompt);

describe('the session ledger and supersede through the AI SDK middleware', () => {
  it('a file read again is superseded, and after the hard summary the plan and the files are in the ledger', async () => {
    const plan = ['Read the parser', 'Read the lexer', 'Explain the exports'];
    const files = [
      'src/parser.ts',
      'src/lexer.ts',
      'src/parser.ts',
      'src/util.ts',
      'src/main.ts',
      'src/cli.ts',
    ];
    const model = new MockLanguageModelV3({
      doGenerate: [
        callOf('todo', 'write_todos', { todos: plan }),
        ...files.map((path, index) => callOf(`read_${index}`, 'read_file', { path })),
        {
          content: [{ type: 'text', text: 'Done.' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: {
              total: undefined,
              noCache: undefined,
              cacheRead: undefined,
              cacheWrite: undefined,
            },
            outputTokens: { total: undefined, text: undefined, reasoning: undefined },
          },
          warnings: [],
        },
      ],
    });
    const events: CompactionEvent[] = [];
    const middleware = createCompactionMiddleware({
      thresholds: { mid: 2500, hard: 3500 },
      micro: { cacheAware: false, keepTurns: 50, minTokens: 50, clearAtLeast: 0 },
      onEvent: (event) => events.push(event),
    });
    await generateText({
      model: wrapLanguageModel({ model, middleware }),
      system: 'You are a coding agent.',
      prompt: 'Explain what the parser and the lexer export.',
      tools,
      stopWhen: stepCountIs(files.length + 2),
    });
    const prompts = model.doGenerateCalls.map((call) => call.prompt);
    // The first read of src/parser.ts points at the second, before any layer past micro ran.
    const reread = prompts.find((prompt) => text(prompt).includes('superseded by the newer copy'));
    expect(reread, 'a prompt with the first parser read superseded').toBeDefined();
    expect(text(reread!)).toMatch(
      /used read_file\(src\/parser\.ts\) → superseded by the newer copy in read_2/,
    );
    expect(events.some((event) => event.type === 'compaction-end' && event.layer === 'hard')).toBe(true);
    const last = text(prompts.at(-1)!);
    expect(last).toContain('<session_ledger');
    for (const item of plan) expect(last).toContain(item);
    for (const path of ['parser.ts', 'lexer.ts', 'util.ts', 'main.ts']) expect(last).toContain(path);
    expect(last).toContain('Explain what the parser and the lexer export.');
  });
});
