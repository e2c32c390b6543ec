import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';
import { type HttpHop, startHttpHop } from './http-hop.js';

let server: ScriptedModelServer | undefined;
let hop: HttpHop | undefined;
afterEach(async () => {
  await hop?.close();
  await server?.close();
});

describe('the recording hop', () => {
  it('breaks the answer of its client when the answer behind it breaks, as the agent would see it without the hop', async () => {
    server = await startScriptedModelServer({ script: [{ type: 'drop-connection' }] });
    hop = await startHttpHop(server.url);
    const answer = await fetch(`${hop.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'm',
        max_tokens: 10,
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      }),
    });
    expect(answer.status).toBe(200);
    // Before, the hop ended its answer neither whole nor broken: the agent waited for more (240 s).
    await expect(answer.text()).rejects.toThrow();
    expect(hop.requests).toHaveLength(1);
  });
});
