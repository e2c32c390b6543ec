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

  it.each([
    ['/openai/v1/chat/completions', 'openai'],
    ['/api/v1/messages', 'anthropic'],
    ['/api/v1/messages/', 'anthropic'],
    ['/gateway/team-a/v1/responses', 'responses'],
  ] as const)('compacts %s, a base URL with a path prefix', (path, api) => {
    expect(compactedApi('POST', path)).toBe(api);
  });

  it('does not compact endpoints under a compacted path, prefixed or not', () => {
    for (const path of [
      '/api/v1/messages/count_tokens',
      '/openai/v1/responses/resp_1/cancel',
      '/v1/messagesx',
    ])
      expect(compactedApi('POST', path)).toBeUndefined();
  });

  it('knows the provider of a prefixed path by its path', () => {
    expect(providerOf('/api/v1/messages/count_tokens', {})).toBe('anthropic');
    expect(providerOf('/openai/v1/chat/completions', { 'x-api-key': 'k' })).toBe('openai');
    expect(providerOf('/openai/v1/responses', { 'x-api-key': 'k' })).toBe('openai');
  });

  it('sends paths of neither API by their headers', () => {
    expect(providerOf('/v1/models', { 'anthropic-version': '2023-06-01' })).toBe('anthropic');
    expect(providerOf('/v1/models', { authorization: 'Bearer x' })).toBe('openai');
  });
});
