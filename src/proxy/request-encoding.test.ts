import { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useProxyHarness } from './proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

const body = {
  model: 'claude-test',
  max_tokens: 10,
  messages: [{ role: 'user', content: 'Hello there' }],
};

function send(url: string, payload: Buffer, encoding: string) {
  return fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-encoding': encoding,
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
    },
    body: payload,
  });
}

describe('compressed request bodies', () => {
  it.each([
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
  ])('%s: decoded, read as a conversation and sent upstream uncompressed', async (encoding, compress) => {
    const { server, proxy, records } = await startProxyOver(['Hi.']);
    const response = await send(proxy.url, compress(Buffer.from(JSON.stringify(body))), encoding);
    expect(response.status).toBe(200);
    expect(records[0]?.api).toBe('anthropic');
    expect(server.requests[0]?.body).toEqual(body);
    expect(server.requests[0]?.headers['content-encoding']).toBeUndefined();
  });

  it('an encoding it cannot decode goes upstream untouched and the log says why', async () => {
    const lines: string[] = [];
    const { proxy, records } = await startProxyOver(['Hi.'], { log: (line) => lines.push(line) });
    await (await send(proxy.url, Buffer.from('not really compressed'), 'compress')).text();
    expect(records[0]?.passthrough).toBe('skipped: content-encoding compress');
    expect(lines[0]).toContain('skipped: content-encoding');
  });
});

describe('thresholds below the fixed overhead', () => {
  it('warns once, on the first request, when mid sits below its system, tools and first message', async () => {
    const lines: string[] = [];
    const { proxy } = await startProxyOver(['Hi.', 'Again.'], {
      thresholds: { mid: 300, hard: 400 },
      log: (line) => lines.push(line),
    });
    const large = { ...body, system: 'You are a coding agent. '.repeat(200) };
    for (let turn = 0; turn < 2; turn += 1) {
      await (await send(proxy.url, Buffer.from(JSON.stringify(large)), 'identity')).text();
    }
    const warnings = lines.filter((line) => line.startsWith('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /mid threshold \(300 tokens\) sits below this client's fixed overhead of about \d+ tokens/,
    );
  });
});
