import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { prependNoteToStream } from './compaction-notice.js';

/** A response that records what reaches the socket. */
function fakeResponse(contentType = 'text/event-stream') {
  const written: string[] = [];
  const response = {
    getHeader: (name: string) => (name === 'content-type' ? contentType : undefined),
    write(chunk: unknown) {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return true;
    },
    end(chunk?: unknown) {
      if (chunk !== undefined && typeof chunk !== 'function') response.write(chunk);
      return response;
    },
  };
  return { response: response as unknown as ServerResponse, written };
}

const text = (value: string) => ({
  type: 'content_block_delta',
  index: 0,
  delta: { type: 'text_delta', text: value },
});

describe('the --notify note in a stream', () => {
  it('reads events split anywhere, CRLF lines included, and leaves the chunks after the note as they are', () => {
    const { response, written } = fakeResponse();
    prependNoteToStream(response, 'anthropic', 'NOTE ');
    const start = 'event: message_start\r\ndata: {"type":"message_start"}\r\n\r\n';
    const delta = `event: content_block_delta\r\ndata: ${JSON.stringify(text('héllo'))}\r\n\r\n`;
    const bytes = Buffer.from(start + delta);
    // Cut inside the `é` and inside a CRLF: the note still finds the text.
    const cut = bytes.indexOf(Buffer.from('é')) + 1;
    response.write(bytes.subarray(0, 20));
    response.write(bytes.subarray(20, cut));
    response.write(bytes.subarray(cut));
    const later = `: keep-alive\n\nevent: content_block_delta\ndata: ${JSON.stringify(text(' world'))}\n\n`;
    response.write(later);
    response.end();
    const out = written.join('');
    expect(out).toContain('"text":"NOTE héllo"');
    expect(out.match(/NOTE/g)).toHaveLength(1);
    expect(out).toContain('"type":"message_start"');
    expect(written.at(-1)).toBe(later);
  });

  it('delivers an event the answer ends inside, and the last chunk end() carries', () => {
    const { response, written } = fakeResponse();
    prependNoteToStream(response, 'responses', 'NOTE ');
    response.write('data: {"type":"response.created"}\n\ndata: {"type":"response.output_text.delta",');
    response.end('"delta":"hi"}');
    expect(written.join('')).toContain('"delta":"NOTE hi"');
  });

  it('leaves a JSON answer alone', () => {
    const { response, written } = fakeResponse('application/json');
    prependNoteToStream(response, 'openai', 'NOTE ');
    const body = '{"choices":[{"message":{"content":"hi"}}]}';
    response.write(body);
    response.end();
    expect(written).toEqual([body]);
  });
});
