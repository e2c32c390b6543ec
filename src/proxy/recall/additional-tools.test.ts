/**
 * Codex on its default model declares its tools in an `additional_tools` input item (a
 * `functions` namespace holding `exec`), with no `tools` field: `--recall` offers `recall` there
 * too, and leaves alone a client whose own `recall` sits in such a namespace.
 */
import { describe, expect, it } from 'vitest';
import { useProxyHarness } from '../proxy-harness.test-utils.js';

const startProxyOver = useProxyHarness();

function codexBody(nested: string) {
  return {
    model: 'gpt-5.5',
    stream: false,
    input: [
      {
        type: 'additional_tools',
        role: 'developer',
        tools: [
          {
            type: 'namespace',
            name: 'functions',
            description: '',
            tools: [{ type: 'custom', name: nested, description: 'Run JavaScript' }],
          },
        ],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files.' }] },
    ],
  };
}

async function toolsSent(nested: string): Promise<unknown> {
  const { server, proxy } = await startProxyOver(['Done.'], { recall: true });
  const answer = await fetch(`${proxy.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify(codexBody(nested)),
  });
  expect(answer.status).toBe(200);
  return server.requests[0]!.body.tools;
}

describe('--recall and tools declared in additional_tools', () => {
  it('offers recall beside them', async () => {
    expect(await toolsSent('exec')).toEqual([expect.objectContaining({ type: 'function', name: 'recall' })]);
  });

  it("leaves a client's own nested recall alone", async () => {
    expect(await toolsSent('recall')).toBeUndefined();
  });
});
