import { describe, expect, it } from 'vitest';
import type { SseMessage } from './upstream/sse-reader.js';
import { createUsageTap } from './usage-tap.js';

/** An Anthropic stream whose text delta holds a 4-byte character, then the usage. */
const stream = Buffer.from(
  'event: content_block_delta\n' +
    'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok 😀"}}\n\n' +
    'event: message_delta\n' +
    'data: {"type":"message_delta","usage":{"output_tokens":7}}\n\n',
);

describe('the usage tap', () => {
  it('gets a 4-byte UTF-8 character split across two chunks whole, and the usage', () => {
    const events: SseMessage[] = [];
    const tap = createUsageTap('anthropic', true, (event) => events.push(event));
    const emoji = stream.indexOf(Buffer.from('😀'));
    // Two bytes of the character in each chunk.
    tap.write(stream.subarray(0, emoji + 2));
    tap.write(stream.subarray(emoji + 2));
    expect(tap.finish()).toEqual({ output_tokens: 7 });
    expect(JSON.parse(events[0]!.data).delta.text).toBe('ok 😀');
  });

  it('reads an event the stream left open at its end, with CRLF line ends', () => {
    const tap = createUsageTap('openai', true);
    tap.write(Buffer.from('data: {"choices":[]}\r\n\r\ndata: {"usage":{"prompt_tokens":3}}'));
    expect(tap.finish()).toEqual({ prompt_tokens: 3 });
  });
});
