import { describe, expect, it } from 'vitest';
import { streamErrorOf } from './stream-error.js';

describe('streamErrorOf', () => {
  it.each([
    [
      'Anthropic error event',
      'error',
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      'overloaded_error: Overloaded',
    ],
    [
      'Responses error event',
      'error',
      '{"type":"error","code":"rate_limit_exceeded","message":"Slow down"}',
      'rate_limit_exceeded: Slow down',
    ],
    [
      'Responses response.failed',
      'response.failed',
      '{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"Boom"}}}',
      'server_error: Boom',
    ],
    ['Chat error chunk', '', '{"error":{"message":"Boom","type":"server_error"}}', 'server_error: Boom'],
    [
      'Gemini error chunk',
      '',
      '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}',
      'UNAVAILABLE: The model is overloaded.',
    ],
    ['an error event that is not JSON', 'error', 'upstream gave up', 'upstream gave up'],
  ])('names %s', (_name, event, data, named) => {
    expect(streamErrorOf({ event, data, id: undefined })).toBe(named);
  });

  it.each([
    [
      'Responses response.completed',
      'response.completed',
      '{"type":"response.completed","response":{"status":"completed","error":null}}',
    ],
    [
      'a text delta that quotes "error"',
      'content_block_delta',
      '{"type":"content_block_delta","delta":{"type":"text_delta","text":"the \\"error\\": key"}}',
    ],
    ['a Chat chunk', '', '{"choices":[{"delta":{"content":"error handling"}}]}'],
    ['a message_stop', 'message_stop', '{"type":"message_stop"}'],
  ])('passes %s', (_name, event, data) => {
    expect(streamErrorOf({ event, data, id: undefined })).toBeUndefined();
  });
});
