import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateMessages } from '../core/conversation/validate.js';
import type { ToolResultBlock, ToolUseBlock } from '../core/model/messages.js';
import { detectTranscriptFormat, importTranscript } from './index.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

describe('an opencode export', () => {
  const text = fixture('opencode-session.json');

  it('is detected and read as one model call per step, its tools as calls and results', () => {
    expect(detectTranscriptFormat(text)).toBe('opencode');
    const { conversation, usage, timestamps, meta } = importTranscript(text, { source: 's.json' });
    expect(meta.format).toBe('opencode');
    expect(meta.repairs).toBeUndefined();
    const { messages } = conversation;
    expect(validateMessages(messages)).toEqual([]);
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const calls = messages.flatMap((message) =>
      typeof message.content === 'string'
        ? []
        : message.content.filter((block): block is ToolUseBlock => block.type === 'tool_use'),
    );
    expect(calls.map((call) => call.name)).toEqual(['read', 'edit', 'bash']);
    expect(calls[1]!.input).toMatchObject({ oldString: 'return 1', newString: 'return 2' });
    const read = (messages[2]!.content as ToolResultBlock[])[0]!;
    expect(read.tool_use_id).toBe(calls[0]!.id);
    expect(String(read.content)).toContain('1: def f():');
    // One usage per model call: the prompt is the new input and the cache read and written.
    expect(usage).toHaveLength(4);
    expect(usage[0]).toEqual({ prompt_tokens: 7573, completion_tokens: 10 });
    expect(usage[1]).toEqual({ prompt_tokens: 7556 + 110, completion_tokens: 22 });
    expect(timestamps).toHaveLength(4);
    expect(timestamps!.every((time, index) => index === 0 || time! >= timestamps![index - 1]!)).toBe(true);
  });
});

describe('an opencode export with a compaction', () => {
  const text = fixture('opencode-compaction.json');
  const { conversation, usage, compactions } = importTranscript(text);

  it('leaves the compaction out of the conversation and records it: summary, index and kept tail', () => {
    expect(validateMessages(conversation.messages)).toEqual([]);
    const flat = JSON.stringify(conversation.messages);
    expect(flat).not.toContain('## Goal');
    // Seven model calls of the agent's own; the summary call is opencode's compaction.
    expect(usage).toHaveLength(7);
    expect(compactions).toHaveLength(1);
    const [compaction] = compactions!;
    expect(compaction!.summary).toBe('## Goal\nRead the files.\n## Progress\nRead f1 to f4.');
    // Compacted after the fifth read: the user's task, five calls and their results.
    expect(compaction!.index).toBe(11);
    // The tail opencode kept: the last call and its result, which its next request sent again.
    expect(compaction!.attached.map((message) => message.role)).toEqual(['assistant', 'user']);
    expect(JSON.stringify(compaction!.attached)).toContain('f5.txt');
    // Its note after the summary stays in the conversation, as it went to the model.
    expect(flat).toContain('Continue if you have next steps');
  });
});
