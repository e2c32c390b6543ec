import { existsSync } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateMessages } from '../../core/conversation/validate.js';
import type { Message, TextBlock, ToolResultBlock } from '../../core/model/messages.js';
import { claudeCodeRequest, codexRequest } from '../../core/request/request-fixtures.test-utils.js';
import { createHeuristicCounter } from '../../core/tokens/heuristic-counter.js';
import { countMessageTokens, countSystemTokens } from '../../core/tokens/message-tokens.js';
import { countToolTokens } from '../../core/tokens/tool-tokens.js';
import { useTempDirs } from '../../temp-dirs.test-utils.js';
import { recordingIO } from '../cli-io.test-utils.js';
import { main } from '../main.js';

const tempDir = useTempDirs();

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../../core/request/__fixtures__');
let directory: string;

beforeAll(async () => {
  directory = tempDir('agent-compact-request-');
  for (const name of ['claude-code-request.json', 'codex-request.json'])
    await copyFile(join(fixtures, name), join(directory, name));
  const broken = claudeCodeRequest(3);
  // The last tool call lost its result: the request ends on a tool_use.
  broken.messages.pop();
  await writeFile(join(directory, 'broken-request.json'), JSON.stringify(broken, null, 2));
  const brokenCodex = codexRequest(3);
  // The last call is gone: its output answers nothing.
  (brokenCodex.input as unknown[]).splice(-2, 1);
  await writeFile(join(directory, 'broken-codex.json'), JSON.stringify(brokenCodex));
  const unanswered = codexRequest(3);
  // The last call's output is missing.
  (unanswered.input as unknown[]).pop();
  await writeFile(join(directory, 'unanswered-codex.json'), JSON.stringify(unanswered));
  await writeFile(join(directory, 'wrong-type.json'), JSON.stringify({ model: 'claude', messages: {} }));
});

/** The conversation without Anthropic mid-conversation system messages (validateMessages knows user and assistant). */
function withoutSystemMessages(messages: readonly unknown[]): Message[] {
  return messages.filter((message) => (message as { role: string }).role !== 'system') as Message[];
}

async function run(args: string[]) {
  const { output, io } = recordingIO(directory);
  const code = await main(args, io);
  return { code, ...output };
}

describe('whole request bodies in the CLI', () => {
  it('validate: a Claude Code request is valid; a broken one names the path in the body', async () => {
    expect(await run(['validate', 'claude-code-request.json'])).toMatchObject({ code: 0, stdout: 'valid\n' });
    expect(await run(['validate', 'codex-request.json'])).toMatchObject({ code: 0, stdout: 'valid\n' });
    const broken = await run(['validate', 'broken-request.json']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(
      /^messages\[6\]\.content\[2\]: tool_use "toolu_010003Qx" ends the conversation/,
    );
  });

  it('validate: a broken Responses request names the item in input', async () => {
    const broken = await run(['validate', 'broken-codex.json', '--json']);
    expect(broken.code).toBe(1);
    const report = JSON.parse(broken.stdout);
    expect(report.valid).toBe(false);
    expect(report.problems.map((problem: { path: string }) => problem.path)).toEqual([
      'input[10]',
      'input[11]',
    ]);
    expect(report.problems[1].message).toBe(
      'function_call_output "call_0003aBcD" answers no earlier function_call',
    );
  });

  it('validate --fix writes the whole request back with only the conversation repaired', async () => {
    const result = await run(['validate', 'broken-request.json', '--fix', '-o', 'fixed.json']);
    expect(result.code).toBe(0);
    const fixed = JSON.parse(await readFile(join(directory, 'fixed.json'), 'utf8'));
    const original = JSON.parse(await readFile(join(directory, 'broken-request.json'), 'utf8'));
    expect(Object.keys(fixed)).toEqual(Object.keys(original));
    expect(fixed.tools).toEqual(original.tools);
    expect(fixed.metadata).toEqual(original.metadata);
    // The mid-conversation system message stays where it was; the rest is valid.
    expect(fixed.messages[1]).toEqual(original.messages[1]);
    expect(validateMessages(withoutSystemMessages(fixed.messages))).toEqual([]);
  });

  it('validate --fix on a Responses request writes a valid Responses request back', async () => {
    const result = await run(['validate', 'unanswered-codex.json', '--fix', '-o', 'fixed-codex.json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/added an is_error tool_result for tool_use "call_0003aBcD"/);
    const fixed = JSON.parse(await readFile(join(directory, 'fixed-codex.json'), 'utf8'));
    const original = JSON.parse(await readFile(join(directory, 'unanswered-codex.json'), 'utf8'));
    expect(Object.keys(fixed)).toEqual(Object.keys(original));
    expect(fixed.instructions).toBe(original.instructions);
    // Every item the client sent goes back as it came; the missing output is added after its call.
    expect(fixed.input.slice(0, -1)).toEqual(original.input);
    expect(fixed.input.at(-1)).toMatchObject({ type: 'function_call_output', call_id: 'call_0003aBcD' });
    expect(validateMessages(fixed.input, { format: 'responses' })).toEqual([]);
  });

  it('count --json counts system, tools and messages: everything billed as input', async () => {
    const body = claudeCodeRequest();
    const counter = createHeuristicCounter();
    // A mid-conversation system message counts with the system prompt.
    const systemMessage = body.messages[1] as { role: string; content: string };
    expect(systemMessage.role).toBe('system');
    const systemBlocks = [
      ...(body.system as TextBlock[]),
      { type: 'text' as const, text: systemMessage.content },
    ];
    const system = countSystemTokens(systemBlocks, counter);
    const tools = countToolTokens(body.tools, counter);
    const conversation = withoutSystemMessages(body.messages);
    const messages = conversation.reduce((sum, message) => sum + countMessageTokens(message, counter), 0);
    const result = await run(['count', 'claude-code-request.json', '--json', '--tokenizer', 'heuristic']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      tokens: system + tools + messages,
      messages: conversation.length,
      system,
      tools,
      tokenizer: 'heuristic',
      format: 'anthropic',
    });
    expect(tools).toBeGreaterThan(10_000);
    const codex = await run(['count', 'codex-request.json', '--tokenizer', 'heuristic']);
    expect(codex.stdout).toMatch(
      /^\d+ tokens \(\d+ messages, system \d+, tools \d+; heuristic, responses\)\n$/,
    );
  });

  it('compact writes the whole request back, keeps the archive beside it, and recall prints the originals', async () => {
    const result = await run([
      'compact',
      'claude-code-request.json',
      '--mid',
      '20000',
      '--hard',
      '60000',
      '-o',
      'out.json',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ format: 'anthropic', output: 'out.json', archive: 'out.json.archive' });
    expect(summary.layer).not.toBe('none');
    const text = await readFile(join(directory, 'out.json'), 'utf8');
    // One line in, one line out (a proxy log's request stays a log line).
    expect(text.trim()).not.toContain('\n');
    const written = JSON.parse(text);
    const original = claudeCodeRequest();
    expect(Object.keys(written)).toEqual(Object.keys(original));
    const { messages, ...rest } = written;
    const { messages: _before, ...restBefore } = original;
    expect(rest).toEqual(restBefore);
    expect(messages[1]).toEqual(original.messages[1]);
    expect(validateMessages(withoutSystemMessages(messages))).toEqual([]);
    expect(existsSync(join(directory, 'out.json.archive', 'claude-code-request.jsonl'))).toBe(true);

    // Every id a placeholder names can be recalled, byte for byte.
    const ids = [...text.matchAll(/recall (r\d+)/g)].map((match) => match[1]!);
    expect(ids.length).toBeGreaterThan(0);
    const firstId = ids[0]!;
    const recalled = await run(['recall', firstId, '--archive', 'out.json.archive']);
    expect(recalled.code).toBe(0);
    const results = (original.messages as Message[]).flatMap((message) =>
      typeof message.content === 'string'
        ? []
        : message.content.filter((block) => block.type === 'tool_result'),
    ) as ToolResultBlock[];
    expect(results.map((block) => block.content)).toContain(recalled.stdout);
  });

  it('compact on a Codex request writes a Responses request with the same instructions and fields', async () => {
    const result = await run(['compact', 'codex-request.json', '--window', '40000', '--force', 'hard']);
    expect(result.code).toBe(0);
    const written = JSON.parse(result.stdout);
    const original = codexRequest();
    expect(Object.keys(written)).toEqual(Object.keys(original));
    const { input, ...rest } = written;
    const { input: _before, ...restBefore } = original;
    expect(rest).toEqual(restBefore);
    expect(input.length).toBeLessThan((original.input as unknown[]).length);
    expect(result.stderr).toMatch(/^hard: \d+ → \d+ tokens, .* archived in codex-request\.json\.archive\n$/);
  });

  it.each([
    [['recall', 'r999', '--archive', 'out.json.archive'], /no archived item "r999" in out\.json\.archive/],
    [['recall', 'r1'], /missing --archive DIR/],
    [['recall', 'r1', '--archive', 'nowhere'], /nowhere: no such archive folder/],
    [['compact', 'wrong-type.json'], /wrong-type\.json: messages: expected an array, got object/],
    [['count', 'wrong-type.json'], /wrong-type\.json: messages: expected an array, got object/],
  ])('%j exits 2 with one line', async (args, pattern) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(pattern);
    // One line of its own; an argument mistake adds the command's usage line under it.
    const lines = result.stderr.trim().split('\n');
    expect(lines.filter((line) => !line.startsWith('Usage: agent-compact '))).toHaveLength(1);
  });
});
