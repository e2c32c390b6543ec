import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { useProxyHarness } from './proxy-harness.test-utils.js';
import { compactedApi, providerOf, upstreamUrl } from './routes.js';

const startProxyOver = useProxyHarness();

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

  it.each([
    ['/v1/messages', 'anthropic'],
    ['/v1/chat/completions', 'openai'],
    ['/v1/responses', 'openai'],
  ] as const)('an x-goog-api-key header, even empty, leaves %s with %s', (path, provider) => {
    expect(providerOf(path, { 'x-goog-api-key': '' })).toBe(provider);
    expect(providerOf(path, { 'x-goog-api-key': 'AIza-key' })).toBe(provider);
    expect(providerOf('/v1/models', { 'x-goog-api-key': 'AIza-key' })).toBe('gemini');
  });

  it('/v1/messages with an empty x-goog-api-key goes to the Anthropic upstream', async () => {
    const { server, proxy } = await startProxyOver(['Hi.'], {
      openaiUpstream: 'http://127.0.0.1:1',
      geminiUpstream: 'http://127.0.0.1:1',
    });
    const client = new Anthropic({
      apiKey: 'sk-ant-user',
      baseURL: proxy.url,
      maxRetries: 0,
      defaultHeaders: { 'x-goog-api-key': '' },
    });
    const message = await client.messages.create({
      model: 'claude-test',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Hi.' }]);
    expect(server.requests.map((request) => request.path)).toEqual(['/v1/messages']);
  });
});

describe('Gemini by its path or its key', () => {
  it.each([
    '/v1beta/models',
    '/v1beta/models/gemini-2.5-pro',
    '/v1beta/cachedContents',
    '/upload/v1beta/files',
    '/v1beta/tunedModels/my-model:generateContent',
  ])('%s is Gemini, whatever the headers', (path) => {
    expect(providerOf(path, {})).toBe('gemini');
    expect(providerOf(path, { authorization: 'Bearer x' })).toBe('gemini');
  });

  it('a ?key= on a path every API has is Gemini; on a path of another API it is not', () => {
    expect(providerOf('/v1/models', {}, new URLSearchParams('key=AIza'))).toBe('gemini');
    expect(providerOf('/v1/models', {}, new URLSearchParams('limit=2'))).toBe('openai');
    expect(providerOf('/v1/messages', {}, new URLSearchParams('key=AIza'))).toBe('anthropic');
  });

  it('compacts a tuned model generateContent', () => {
    expect(compactedApi('POST', '/v1beta/tunedModels/my-model:generateContent')).toBe('gemini');
  });

  it('sends ?key= requests to the Gemini upstream, never to the OpenAI one', async () => {
    const paths: string[] = [];
    const gemini = createServer((request, response) => {
      paths.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"models":[]}');
    });
    await new Promise<void>((resolve) => gemini.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = gemini.address() as AddressInfo;
      const { proxy } = await startProxyOver(['unused'], {
        openaiUpstream: 'http://127.0.0.1:1',
        geminiUpstream: `http://127.0.0.1:${port}`,
      });
      for (const path of ['/v1beta/models?key=K1', '/v1/models?key=K2', '/upload/v1beta/files?key=K3']) {
        const response = await fetch(`${proxy.url}${path}`);
        expect(response.status, path).toBe(200);
      }
      expect(paths).toEqual(['/v1beta/models?key=K1', '/v1/models?key=K2', '/upload/v1beta/files?key=K3']);
    } finally {
      await new Promise((resolve) => gemini.close(resolve));
    }
  });

  it('refuses Gemini traffic with a 404 when only the Anthropic and OpenAI upstreams are given', async () => {
    // Both upstreams record what reaches them: a Gemini key sent there would show.
    const paths: string[] = [];
    const other = createServer((request, response) => {
      paths.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const { proxy } = await startProxyOver(['never sent'], {
        upstream: undefined,
        anthropicUpstream: otherUrl,
        openaiUpstream: otherUrl,
      });
      const ai = new GoogleGenAI({
        apiKey: 'AIza-user-key',
        apiVersion: 'v1beta',
        httpOptions: { baseUrl: proxy.url },
      });
      const refused = await ai.models.generateContent({ model: 'gemini-test', contents: 'hi' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(String(refused)).toMatch(/404[\s\S]*no Gemini upstream/);
      const keyed = await fetch(`${proxy.url}/v1/models?key=AIza-user-key`);
      expect(keyed.status).toBe(404);
      expect(((await keyed.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
      expect(paths).toEqual([]);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
