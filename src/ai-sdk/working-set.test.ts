/**
 * The working set through the AI SDK middleware: a real `generateText` tool loop against the
 * scripted server reads a file, edits one function, then reads on until a hard compaction; the
 * request the server receives after it shows the edited file and the definition the edit changed.
 */
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompactionEvent } from '../core/events.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/scripted-model-server.js';
import { chatCompletionsModel } from './chat-completions-model.test-utils.js';
import { createCompactionMiddleware } from './compaction-middleware.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const CODE_PATH = 'src/usage.ts';
const OLD_LINE = '  return usage.input + usage.output;';
const NEW_LINE = '  return usage.input + usage.output + (usage.cached ?? 0);';
/** Reads after the edit. */
const LATER_READS = 8;

/** The workspace the tools work on: the code file, and data files to read. */
function workspace(): Map<string, string> {
  const files = new Map<string, string>();
  files.set(
    CODE_PATH,
    [
      'export interface Usage {',
      '  input: number;',
      '  output: number;',
      '  cached?: number;',
      '}',
      '',
      'export function totalTokens(usage: Usage): number {',
      OLD_LINE,
      '}',
      '',
      'export function formatUsage(usage: Usage): string {',
      "  return String(usage.input) + ' in';",
      '}',
      '',
    ].join('\n'),
  );
  // The fourth is large enough to push the prompt past the hard threshold at once.
  for (let index = 1; index <= LATER_READS; index++)
    files.set(
      `data/part-${index}.txt`,
      `part ${index}: lorem ipsum dolor sit amet\n`.repeat(index === 4 ? 600 : 60),
    );
  return files;
}

function tools(files: Map<string, string>) {
  return {
    read_file: tool({
      description: 'Reads a file',
      inputSchema: jsonSchema<{ path: string }>({
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      }),
      execute: async ({ path }) => files.get(path) ?? `no such file: ${path}`,
    }),
    edit_file: tool({
      description: 'Replaces old_string with new_string in a file',
      inputSchema: jsonSchema<{ path: string; old_string: string; new_string: string }>({
        type: 'object',
        properties: {
          path: { type: 'string' },
          old_string: { type: 'string' },
          new_string: { type: 'string' },
        },
        required: ['path', 'old_string', 'new_string'],
      }),
      execute: async ({ path, old_string, new_string }) => {
        const text = files.get(path);
        if (text === undefined || !text.includes(old_string)) return `old_string not found in ${path}`;
        files.set(path, text.replace(old_string, new_string));
        return `The file ${path} has been updated.`;
      },
    }),
  };
}

/** The agent's call at `step`: read the code, edit it, then read the data files, then stop. */
function agentStep(step: number) {
  if (step === 1)
    return { type: 'tool-calls' as const, calls: [{ name: 'read_file', input: { path: CODE_PATH } }] };
  if (step === 2) {
    const input = { path: CODE_PATH, old_string: OLD_LINE, new_string: NEW_LINE };
    return { type: 'tool-calls' as const, calls: [{ name: 'edit_file', input }] };
  }
  if (step - 2 <= LATER_READS)
    return {
      type: 'tool-calls' as const,
      calls: [{ name: 'read_file', input: { path: `data/part-${step - 2}.txt` } }],
    };
  return 'Done.';
}

/** Every string in a request body. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  return typeof value === 'object' && value !== null ? Object.values(value).flatMap(strings) : [];
}

describe('the working set through the AI SDK middleware', () => {
  it('reaches the model in the first request after a hard compaction, naming the edited file and definition', async () => {
    let step = 0;
    server = await startScriptedModelServer({ script: () => agentStep(++step) });
    const files = workspace();
    /** How many requests the server had received when each hard compaction ended. */
    const hardAt: number[] = [];
    const events: CompactionEvent[] = [];
    const middleware = createCompactionMiddleware({
      thresholds: { mid: 3000, hard: 5000 },
      micro: { cacheAware: false, keepTurns: 2, minTokens: 50 },
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'compaction-end' && event.layer === 'hard') hardAt.push(server!.requests.length);
      },
    });
    const result = await generateText({
      model: wrapLanguageModel({ model: chatCompletionsModel(server.openaiBaseURL), middleware }),
      system: 'You are a coding agent.',
      prompt: 'Make totalTokens count cached tokens, then read the data files.',
      tools: tools(files),
      stopWhen: stepCountIs(LATER_READS + 3),
    });
    expect(result.text).toBe('Done.');
    expect(files.get(CODE_PATH)).toContain(NEW_LINE);
    expect(server.requests.map((request) => request.outcome)).not.toContain('invalid-request');
    expect(events.some((event) => event.type === 'fallback-used')).toBe(false);
    expect(hardAt.length).toBeGreaterThan(0);
    const texts = strings(server.requests[hardAt[0]!]?.body);
    const block = /<working_set>[\s\S]*?<\/working_set>/.exec(texts.join('\n'))?.[0];
    expect(block).toBeDefined();
    expect(block).toContain(CODE_PATH);
    // The definition the edit changed, with the edit's current text.
    expect(block).toContain('totalTokens');
    expect(block).toContain(NEW_LINE.trim());
    // The edit itself was summarized away: the request is the compacted one, not the full history.
    expect(texts.join('\n')).not.toContain('part 1: lorem ipsum');
  });
});
