import { describe, expect, it } from 'vitest';
import { validateMessages } from '../../core/conversation/validate.js';
import { geminiBody, protoNamed } from '../../core/wire/gemini/gemini-session.test-utils.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';
import { createUsageTap } from '../usage-tap.js';

const start = useProxyHarness();
const KEY = 'AIza-secret-key-123';

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('the proxy on the Gemini API', () => {
  it('compacts a streamGenerateContent request and streams the answer straight through', async () => {
    const log: string[] = [];
    const { server, proxy, records } = await start(['Done.'], {
      thresholds: { mid: 3000, hard: 200_000 },
      log: (line) => log.push(line),
    });
    const body = geminiBody(10);
    const response = await post(
      `${proxy.url}/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse`,
      body,
      {
        'x-goog-api-key': KEY,
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toContain('"Done."');
    const upstream = server.requests[0]!;
    expect(upstream).toMatchObject({ api: 'gemini', stream: true, outcome: 'text' });
    expect(JSON.stringify(upstream.body).length).toBeLessThan(JSON.stringify(body).length);
    expect(validateMessages(upstream.body.contents, { format: 'gemini' })).toEqual([]);
    expect(Object.keys(upstream.body)).toEqual(Object.keys(body));
    expect(records[0]).toMatchObject({ api: 'gemini' });
    expect(records[0]!.layer).not.toBe('none');
    expect(log.join('\n')).not.toContain(KEY);
  });

  it('masks the old function responses of a client that writes parts in proto names, in those names', async () => {
    const { server, proxy, records } = await start(['Done.'], { thresholds: { mid: 3000, hard: 200_000 } });
    const body = protoNamed(geminiBody(10));
    const response = await post(`${proxy.url}/v1beta/models/m:generateContent`, body, {
      'x-goog-api-key': KEY,
    });
    expect(response.status).toBe(200);
    expect(records[0]!.layer).not.toBe('none');
    const upstream = server.requests[0]!;
    expect(upstream.outcome).toBe('text');
    const contents = upstream.body.contents as typeof body.contents;
    expect(validateMessages(contents, { format: 'gemini' })).toEqual([]);
    const [masked] = contents[2]!.parts;
    expect(Object.keys(masked!)).toEqual(['function_response']);
    expect(JSON.stringify(masked)).not.toContain('line 100');
    expect(JSON.stringify(contents)).not.toMatch(/"(functionCall|functionResponse|thoughtSignature)"/);
    expect(contents.at(-1)).toEqual(body.contents.at(-1));
  });

  it('takes the key from ?key= and never logs it', async () => {
    const log: string[] = [];
    const { server, proxy } = await start(['Hi.'], { log: (line) => log.push(line) });
    const response = await post(
      `${proxy.url}/v1beta/models/m:generateContent?key=${KEY}`,
      geminiBody(1, { lines: 3 }),
    );
    expect(response.status).toBe(200);
    expect(server.requests[0]!.outcome).toBe('text');
    expect(log.join('\n')).not.toContain(KEY);
  });

  it('forwards a request the compactor cannot read unchanged, and the upstream answers in the Gemini error shape', async () => {
    const { server, proxy } = await start(['unused']);
    const bad = { contents: [{ role: 'user', parts: [{ text: 'a' }, { audio: 'x' }] }] };
    const response = await post(`${proxy.url}/v1beta/models/m:generateContent`, bad, {
      'x-goog-api-key': KEY,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT');
    expect(server.requests[0]!.body).toEqual(bad);
  });

  it.each([true, false])('reads usageMetadata.promptTokenCount as the prompt (streamed: %s)', (streamed) => {
    const tap = createUsageTap('gemini', streamed);
    const chunk = (count: number) => ({
      candidates: [],
      usageMetadata: { promptTokenCount: count, candidatesTokenCount: 5, thoughtsTokenCount: 2 },
    });
    if (streamed)
      tap.write(
        Buffer.from(`data: ${JSON.stringify(chunk(100))}\r\n\r\ndata: ${JSON.stringify(chunk(120))}\r\n\r\n`),
      );
    else tap.write(Buffer.from(JSON.stringify(chunk(120))));
    expect(tap.finish()).toEqual({ prompt_tokens: 120, completion_tokens: 7 });
  });

  it('the same summarizer calls :generateContent upstream with the client key', async () => {
    const { server, proxy } = await start(
      (request) => (request.path.endsWith(':generateContent') ? 'SUMMARY: read ten files.' : 'Done.'),
      { thresholds: { mid: 1000, hard: 2000 }, summarizer: 'same' },
    );
    const response = await post(
      `${proxy.url}/v1beta/models/m:streamGenerateContent?alt=sse&key=${KEY}`,
      geminiBody(10),
    );
    expect(response.status).toBe(200);
    const paths = server.requests.map((request) => `${request.path} ${request.outcome}`);
    expect(paths).toContain('/v1beta/models/m:generateContent text');
    expect(server.requests.every((request) => request.outcome !== 'unauthorized')).toBe(true);
  });

  it('the same summarizer writes a proto-named client’s settings under its names, never both', async () => {
    const { server, proxy } = await start(
      (request) => (request.path.endsWith(':generateContent') ? 'SUMMARY: read ten files.' : 'Done.'),
      { thresholds: { mid: 1000, hard: 2000 }, summarizer: 'same' },
    );
    const { systemInstruction, generationConfig: _config, ...body } = geminiBody(10);
    const response = await post(`${proxy.url}/v1beta/models/m:streamGenerateContent?alt=sse&key=${KEY}`, {
      ...body,
      system_instruction: systemInstruction,
      generation_config: { temperature: 0, max_output_tokens: 8192, response_mime_type: 'application/json' },
      tool_config: { function_calling_config: { mode: 'ANY' } },
    });
    expect(response.status).toBe(200);
    const summary = server.requests.find((request) => request.path.endsWith(':generateContent'))!.body;
    expect(Object.keys(summary)).not.toContain('systemInstruction');
    expect(Object.keys(summary)).not.toContain('generationConfig');
    expect(JSON.stringify(summary.system_instruction)).toContain('You are an interactive CLI agent.');
    // A summary is text of the summary's length: no JSON mode, no forced call, one output limit.
    const config = summary.generation_config as Record<string, unknown>;
    expect(config).toEqual({ temperature: 0, max_output_tokens: expect.any(Number) });
    expect(config.max_output_tokens).not.toBe(8192);
    expect(Object.keys(summary)).not.toContain('tool_config');
    expect(Object.keys(summary)).not.toContain('toolConfig');
  });
});
