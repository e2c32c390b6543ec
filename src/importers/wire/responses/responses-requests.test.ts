import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../../cli/cli-io.test-utils.js';
import { codexSession } from '../../../core/conversation/responses-input.test-utils.js';
import type { ResponsesInputItem } from '../../../core/conversation/responses-types.js';
import { fromResponsesInput } from '../../../core/wire/responses/responses-format.js';
import { main } from '../../../lab/main.js';
import { importTranscript, importTranscriptFile } from '../../index.js';

const instructions = 'You are Codex.';

/** The traffic of a session as a proxy logs it: one request per model call, with its response. */
function trafficLog(
  session: ResponseInputItem[],
): Array<{ request: Record<string, unknown>; response: Record<string, unknown> }> {
  const isAssistantSide = (item: ResponseInputItem) =>
    item.type === 'reasoning' ||
    item.type === 'function_call' ||
    item.type === 'custom_tool_call' ||
    (item.type === 'message' && item.role === 'assistant');
  const log: Array<{ request: Record<string, unknown>; response: Record<string, unknown> }> = [];
  for (let start = 0; start < session.length; start++) {
    if (!isAssistantSide(session[start]!) || (start > 0 && isAssistantSide(session[start - 1]!))) continue;
    let end = start;
    while (end < session.length && isAssistantSide(session[end]!)) end++;
    log.push({
      request: {
        model: 'gpt-5.4',
        instructions,
        input: session.slice(0, start),
        store: false,
        include: ['reasoning.encrypted_content'],
      },
      response: {
        id: `resp_${start}`,
        object: 'response',
        output: session.slice(start, end),
        usage: {
          input_tokens: 1000 + start * 100,
          input_tokens_details: { cached_tokens: 800 },
          output_tokens: 50,
          total_tokens: 1050 + start * 100,
        },
      },
    });
  }
  return log;
}

let directory: string;
const session = codexSession(9);
// The log ends with a model call whose answer is the final message; the last user message follows it.
const sessionUntilAnswer = session.slice(0, -1);

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'responses-requests-'));
  const log = trafficLog(sessionUntilAnswer);
  await writeFile(
    join(directory, 'traffic.jsonl'),
    `${log.map((line) => JSON.stringify(line)).join('\n')}\n`,
  );
  await writeFile(join(directory, 'requests.json'), JSON.stringify(log.map((line) => line.request)));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('Responses request logs', () => {
  it('read as the last request plus its answer, with usage per assistant turn', async () => {
    const transcript = await importTranscriptFile(join(directory, 'traffic.jsonl'));
    const expected = fromResponsesInput(sessionUntilAnswer as ResponsesInputItem[], { instructions });
    expect(transcript.meta.format).toBe('responses');
    expect(transcript.conversation).toEqual({ system: expected.system, messages: expected.messages });
    const turns = expected.messages.filter((message) => message.role === 'assistant').length;
    expect(transcript.usage).toHaveLength(turns);
    expect(transcript.usage[0]).toEqual({
      input_tokens: 1200,
      output_tokens: 50,
      prompt_tokens_details: { cached_tokens: 800 },
    });
    expect(transcript.usage.every((usage) => usage !== undefined)).toBe(true);
  });

  it('read from a JSON array of bare requests (no usage)', async () => {
    const transcript = await importTranscriptFile(join(directory, 'requests.json'), { format: 'responses' });
    expect(transcript.conversation.messages.at(-1)?.role).toBe('user');
    expect(transcript.usage.every((usage) => usage === undefined)).toBe(true);
  });

  it('names the line whose input cannot be read, and the place in it', () => {
    const text = `${JSON.stringify({ model: 'm', input: 'Hi' })}\n${JSON.stringify({ model: 'm', input: [7] })}\n`;
    expect(() => importTranscript(text, { source: 'log.jsonl' })).toThrow(
      expect.objectContaining({ code: 'UNREADABLE_INPUT', path: 'log.jsonl:2: input[0]' }),
    );
  });

  it('names the line that is not a request', () => {
    const text = `${JSON.stringify({ model: 'm', input: 'Hi' })}\n{"model":"m"}\n`;
    expect(() => importTranscript(text, { source: 'log.jsonl' })).toThrow(
      expect.objectContaining({ code: 'UNREADABLE_INPUT', path: 'log.jsonl:2' }),
    );
  });

  it('simulate replays a Responses request log', async () => {
    const { output, io } = recordingIO(directory);
    const code = await main(
      [
        'simulate',
        'traffic.jsonl',
        '--json',
        '--strategies',
        'none,agent-compact',
        '--mid',
        '2000',
        '--hard',
        '4000',
      ],
      io,
    );
    expect(code, output.stderr).toBe(0);
    const result = JSON.parse(output.stdout) as {
      files: Array<Record<string, { turns: number; compactions: Record<string, number> }>>;
    };
    const file = result.files[0]!;
    expect(file['agent-compact']?.turns).toBeGreaterThan(5);
    const compactions = Object.values(file['agent-compact']?.compactions ?? {}).reduce(
      (sum, count) => sum + count,
      0,
    );
    expect(compactions).toBeGreaterThan(0);
  });
});
