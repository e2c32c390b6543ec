import { describe, expect, it } from 'vitest';
import { compactedApi, providerOf, upstreamUrl } from './routes.js';

describe('routes', () => {
  it.each([
    ['http://127.0.0.1:8000', '/v1/messages?beta=true', 'http://127.0.0.1:8000/v1/messages?beta=true'],
    ['https://api.openai.com/v1', '/v1/chat/completions', 'https://api.openai.com/v1/chat/completions'],
    ['https://gateway.example/openai/', '/v1/responses', 'https://gateway.example/openai/v1/responses'],
  ])('joins %s and %s', (base, path, expected) => {
    expect(upstreamUrl(new URL(base), path).href).toBe(expected);
  });

  it('compacts only POSTs to the three conversation APIs', () => {
    expect(compactedApi('POST', '/v1/messages')).toBe('anthropic');
    expect(compactedApi('POST', '/v1/chat/completions')).toBe('openai');
    expect(compactedApi('POST', '/v1/responses')).toBe('responses');
    expect(compactedApi('POST', '/v1/messages/count_tokens')).toBeUndefined();
    expect(compactedApi('GET', '/v1/messages')).toBeUndefined();
  });

  it('sends paths of neither API by their headers', () => {
    expect(providerOf('/v1/models', { 'anthropic-version': '2023-06-01' })).toBe('anthropic');
    expect(providerOf('/v1/models', { authorization: 'Bearer x' })).toBe('openai');
  });
});
