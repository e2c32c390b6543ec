import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useProxyHarness } from '../proxy-harness.test-utils.js';
import { parseByteSize } from './request-body.js';

const startProxyOver = useProxyHarness();
const MiB = 1024 * 1024;
const HUNDRED_MB = 100 * 1000 * 1000;

/** Opens a POST to the proxy; the caller writes the body. */
function open(url: string, path: string, headers: Record<string, string>) {
  const outgoing = httpRequest(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', ...headers },
  });
  const answer = new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    outgoing.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
      );
    });
    outgoing.on('error', reject);
  });
  return { outgoing, answer };
}

/**
 * Streams up to `total` bytes, waiting on the socket like a well-behaved client, and stops once the
 * proxy answers. Returns how many bytes it wrote and the largest growth of this process's memory.
 */
async function streamUntilAnswered(outgoing: ClientRequest, answered: Promise<unknown>, total: number) {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const memory = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const before = memory();
  let peak = 0;
  let written = 0;
  let done = false;
  answered.finally(() => {
    done = true;
  });
  outgoing.write('{"model":"m","messages":[{"role":"user","content":"');
  while (!done && written < total) {
    written += chunk.length;
    peak = Math.max(peak, memory() - before);
    if (!outgoing.write(chunk)) {
      await new Promise<void>((resolve) => {
        outgoing.once('drain', resolve);
        answered.finally(resolve);
      });
    }
  }
  outgoing.destroy();
  return { written, peak };
}

describe('--max-body', () => {
  it.each([
    ['/v1/messages', { type: 'error', error: { type: 'request_too_large' } }],
    ['/v1/chat/completions', { error: { type: 'invalid_request_error' } }],
    ['/v1beta/models/gemini-test:generateContent', { error: { code: 413, status: 'INVALID_ARGUMENT' } }],
    // An Anthropic key makes a passthrough path Anthropic's.
    ['/v1/files', { type: 'error', error: { type: 'request_too_large' } }],
  ])(
    'a declared 100 MB body to %s gets 413 in the provider shape with no byte of it sent',
    async (path, shape) => {
      const { server, proxy, records } = await startProxyOver(['unused']);
      const { outgoing, answer } = open(proxy.url, path, { 'content-length': String(HUNDRED_MB) });
      outgoing.flushHeaders();
      const { status, body } = await answer;
      outgoing.destroy();
      expect(status).toBe(413);
      expect(body).toMatchObject(shape);
      expect(server.requests).toEqual([]);
      expect(records.map((record) => record.status)).toEqual([413]);
    },
  );

  it.each([
    ['a compacted API', '/v1/messages'],
    ['a passthrough path', '/v1/files'],
  ])('a 100 MB body streamed to %s gets 413 once past the cap, and is never held', async (_name, path) => {
    const { server, proxy } = await startProxyOver(['unused'], { maxBodyBytes: MiB });
    // No length declared: only the bytes read can tell.
    const { outgoing, answer } = open(proxy.url, path, { 'transfer-encoding': 'chunked' });
    const { written, peak } = await streamUntilAnswered(outgoing, answer, HUNDRED_MB);
    const { status, body } = await answer;
    expect(status).toBe(413);
    expect(JSON.stringify(body)).toContain('--max-body');
    // The client was stopped long before the end, and the proxy held far less than the body.
    expect(written).toBeLessThan(HUNDRED_MB / 4);
    expect(peak).toBeLessThan(HUNDRED_MB / 4);
    expect(server.requests.filter((request) => request.path === path && request.outcome === 'text')).toEqual(
      [],
    );
  });
});

describe('a compressed body', () => {
  it('that would decode past --max-body is never decoded whole: it goes upstream as it came', async () => {
    const { proxy, records } = await startProxyOver(['Hi.'], { maxBodyBytes: MiB });
    const padded = { model: 'claude-test', messages: [{ role: 'user', content: ' '.repeat(4 * MiB) }] };
    const { outgoing, answer } = open(proxy.url, '/v1/messages', { 'content-encoding': 'gzip' });
    outgoing.end(gzipSync(JSON.stringify(padded)));
    await answer.catch(() => undefined);
    expect(records[0]?.passthrough).toBe(`skipped: content-encoding gzip decodes past ${MiB} bytes`);
  });
});

describe('parseByteSize', () => {
  it.each([
    ['33554432', 33_554_432],
    ['32MiB', 32 * MiB],
    ['500kb', 500_000],
    ['1 GB', 1_000_000_000],
    ['2KiB', 2048],
  ])('%s is %i bytes', (text, bytes) => {
    expect(parseByteSize(text, '--max-body')).toBe(bytes);
  });

  it.each(['', '0', '-1', '12 parsecs', '1.5MB'])('"%s" is refused, naming the flag', (text) => {
    expect(() => parseByteSize(text, '--max-body')).toThrow(/--max-body: .* is not a size in bytes/);
  });
});
