// The installed `agent-compact/mcp` subpath and `agent-compact mcp`, driven by the MCP SDK's own
// client over stdio, where the setup has the SDK installed.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createFileArchiveStore } from 'agent-compact/archive';
import { has } from './_support.mjs';

const hasSdk = has('@modelcontextprotocol/sdk/client');

test('agent-compact mcp answers recall and search over stdio', {
  skip: !hasSdk && 'no MCP SDK in this setup',
}, async (t) => {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const directory = await mkdtemp(path.join(tmpdir(), 'compat-mcp-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  await createFileArchiveStore({ directory }).put([
    {
      id: 'r3',
      sessionId: 'task',
      kind: 'tool-result',
      createdAt: 1,
      toolName: 'bash',
      block: { type: 'tool_result', tool_use_id: 'toolu_3', content: 'exit 1: TypeError in parser.ts' },
    },
  ]);
  const client = new Client({ name: 'compat', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: path.resolve('node_modules', '.bin', 'agent-compact'),
      args: ['mcp', '--archive', directory],
    }),
  );
  t.after(() => client.close());
  const recalled = await client.callTool({ name: 'recall', arguments: { id: 'r3' } });
  assert.equal(recalled.content[0].text, 'exit 1: TypeError in parser.ts');
  const found = await client.callTool({ name: 'search', arguments: { query: 'typeerror' } });
  assert.equal(found.content[0].text, 'task r3 (tool-result of bash): exit 1: TypeError in parser.ts');
});
