import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateMessages } from '../core/conversation/validate.js';
import { detectTranscriptFormat, importTranscript } from './index.js';

const records = [
  { sessionId: 's1', projectHash: 'p', startTime: '2026-01-01T00:00:00Z' },
  { id: 'm1', type: 'user', content: [{ text: 'Fix the failing test.' }] },
  {
    id: 'm2',
    type: 'gemini',
    content: 'Reading the test.',
    thoughts: [{ subject: 'Plan', description: 'read first' }],
    tokens: { input: 1200, output: 30, cached: 0, thoughts: 12, tool: 0, total: 1242 },
    toolCalls: [
      {
        id: 'read_file-1',
        name: 'read_file',
        args: { absolute_path: '/repo/a.test.ts' },
        status: 'success',
        result: [
          {
            functionResponse: {
              id: 'read_file-1',
              name: 'read_file',
              response: { output: 'expect(1).toBe(2)' },
            },
          },
        ],
      },
    ],
  },
  { id: 'm3', type: 'gemini', content: 'The expectation is wrong.', tokens: { input: 1300, output: 8 } },
];

describe('Gemini CLI saved chats', () => {
  const jsonl = records.map((record) => JSON.stringify(record)).join('\n');

  it('is detected and read: calls paired with their results, usage per model turn', () => {
    expect(detectTranscriptFormat(jsonl)).toBe('gemini-cli');
    const { conversation, usage, meta } = importTranscript(jsonl, { source: 'session-1.jsonl' });
    expect(meta.format).toBe('gemini-cli');
    expect(validateMessages(conversation.messages)).toEqual([]);
    expect(conversation.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(conversation.messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'read_file-1', content: 'expect(1).toBe(2)' },
    ]);
    expect(usage).toEqual([
      { prompt_tokens: 1200, completion_tokens: 30 },
      { prompt_tokens: 1300, completion_tokens: 8 },
    ]);
  });

  it('reads the older whole-file form with a messages array', () => {
    const chat = { sessionId: 's1', messages: records.slice(1) };
    const { conversation } = importTranscript(JSON.stringify(chat));
    expect(conversation.messages).toHaveLength(4);
  });

  // Written the way Gemini CLI 0.61's ChatRecordingService writes a session: a message is appended
  // again as its tool results and token counts arrive, `$set` updates the metadata, and a rewind
  // drops the messages from the one it names.
  it('folds a real session file as the CLI loads it: repeated ids, $set and $rewindTo', () => {
    const text = readFileSync(new URL('./__fixtures__/gemini-cli-session.jsonl', import.meta.url), 'utf8');
    expect(detectTranscriptFormat(text)).toBe('gemini-cli');
    const { conversation, usage } = importTranscript(text);
    expect(validateMessages(conversation.messages)).toEqual([]);
    expect(conversation.messages.map((message) => [message.role, summaryOf(message.content)])).toEqual([
      ['user', 'Fix the failing test in a.test.ts.'],
      ['assistant', 'tool_use:read_file'],
      ['user', 'tool_result:expect(add(1, 1)).toBe(3);'],
      ['assistant', 'The expectation is wrong: 1 + 1 is 2.'],
      ['user', 'Fix the expectation.'],
      ['assistant', 'Fixed: it now expects 2.'],
    ]);
    expect(usage).toEqual([
      { prompt_tokens: 1200, completion_tokens: 30 },
      { prompt_tokens: 1300, completion_tokens: 8 },
      { prompt_tokens: 1400, completion_tokens: 9 },
    ]);
  });

  it('takes a $set of the whole message list, skipping turns of function responses only', () => {
    const [user, model] = records.slice(1);
    const echoed = {
      id: 'm2b',
      type: 'user',
      content: [
        {
          functionResponse: {
            id: 'read_file-1',
            name: 'read_file',
            response: { output: 'expect(1).toBe(2)' },
          },
        },
      ],
    };
    const lines = [
      records[0],
      { id: 'old', type: 'user', content: 'dropped' },
      { $set: { messages: [user, model, echoed] } },
    ];
    const { conversation } = importTranscript(lines.map((line) => JSON.stringify(line)).join('\n'));
    expect(conversation.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(conversation.messages)).not.toContain('dropped');
  });
});

function summaryOf(
  content: string | readonly { type: string; text?: string; name?: string; content?: unknown }[],
) {
  if (typeof content === 'string') return content;
  return content
    .map((block) =>
      block.type === 'text'
        ? block.text
        : `${block.type}:${block.type === 'tool_use' ? block.name : String(block.content)}`,
    )
    .join(' ');
}
