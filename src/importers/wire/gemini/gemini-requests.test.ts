import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateMessages } from '../../../core/conversation/validate.js';
import { CompactError } from '../../../core/model/errors.js';
import { importTranscript, importTranscriptFile } from '../../index.js';

// Three exchanges of an agent reading two files, the last answer streamed (its chunks as an array).
const fixture = fileURLToPath(new URL('../../__fixtures__/gemini-requests.jsonl', import.meta.url));
const text = readFileSync(fixture, 'utf8');
const lines = text
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { request: { contents: unknown[] }; response: unknown });

describe('Gemini request logs', () => {
  it('are detected from a file: the last request plus its streamed answer, usage per model turn', async () => {
    const { conversation, usage, meta } = await importTranscriptFile(fixture);
    expect(meta.format).toBe('gemini');
    expect(conversation.system).toEqual([{ type: 'text', text: 'You are a coding agent.' }]);
    expect(validateMessages(conversation.messages)).toEqual([]);
    expect(conversation.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const last = conversation.messages.at(-1)!.content as { type: string; text?: string }[];
    expect(last.map((block) => block.text).join('')).toBe('The test expects 3; add(1, 1) is 2.');
    expect(usage).toEqual([
      { prompt_tokens: 900, completion_tokens: 20 },
      { prompt_tokens: 1000, completion_tokens: 22, prompt_tokens_details: { cached_tokens: 800 } },
      { prompt_tokens: 1100, completion_tokens: 15, prompt_tokens_details: { cached_tokens: 900 } },
    ]);
  });

  it('reads bare request bodies (no answers) and a JSON array of them', () => {
    const bodies = lines.map((line) => line.request);
    const fromJsonl = importTranscript(bodies.map((body) => JSON.stringify(body)).join('\n'));
    expect(fromJsonl.meta.format).toBe('gemini');
    expect(fromJsonl.conversation.messages).toHaveLength(5);
    expect(fromJsonl.usage).toEqual([undefined, undefined]);
    expect(importTranscript(JSON.stringify(bodies)).conversation.messages).toHaveLength(5);
  });

  it('names the line that is not a request', () => {
    const broken = [JSON.stringify(lines[0]), JSON.stringify({ note: 'not a request' })].join('\n');
    let error: unknown;
    try {
      importTranscript(broken, { source: 'traffic.jsonl' });
    } catch (caught) {
      error = caught;
    }
    expect(CompactError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'UNREADABLE_INPUT', path: 'traffic.jsonl:2' });
  });

  it('names the line whose request cannot be read, and the place in it', () => {
    const broken = structuredClone(lines);
    (broken[2]!.request.contents[1] as { parts: unknown }).parts = null;
    const text = broken.map((line) => JSON.stringify(line)).join('\n');
    expect(() => importTranscript(text, { source: 'traffic.jsonl' })).toThrow(
      expect.objectContaining({ path: 'traffic.jsonl:3: contents[1].parts' }),
    );
  });
});
