import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileArchiveStore } from '../archive/index.js';
import type { ArchiveItem, ArchiveStore } from '../core/archive/archive-store.js';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { createRecallMcpServer } from './index.js';

const result = (id: string, sessionId: string, content: string, toolName = 'bash'): ArchiveItem => ({
  id,
  sessionId,
  kind: 'tool-result',
  createdAt: 1,
  toolUseId: `toolu_${id}`,
  toolName,
  block: { type: 'tool_result', tool_use_id: `toolu_${id}`, content },
});

const textOf = (answer: Awaited<ReturnType<Client['callTool']>>) =>
  (answer.content as { type: string; text: string }[]).map((part) => part.text).join('');

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'agent-compact-mcp-'));
  const archive = createFileArchiveStore({ directory, sync: false });
  await archive.put([
    result('r1', 'alpha', 'npm test\nFAIL src/parser.test.ts: expected 3, got 4'),
    result('r2', 'alpha', 'README contents'),
    result('r1', 'beta', 'beta output with the word parser'),
  ]);
});
afterEach(() => rm(directory, { recursive: true, force: true }));

async function connectInMemory(archive: ArchiveStore = createFileArchiveStore({ directory })) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createRecallMcpServer({ archive }).connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

describe('createRecallMcpServer', () => {
  it('lists the three tools with their schemas', async () => {
    const client = await connectInMemory();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['recall', 'search', 'sessions']);
    expect(tools[0]!.inputSchema.required).toEqual(['id']);
    await client.close();
  });

  it('recalls an id scoped to its session, and asks for the session when two hold it', async () => {
    const client = await connectInMemory();
    const scoped = await client.callTool({ name: 'recall', arguments: { id: 'r1', session: 'beta' } });
    expect(textOf(scoped)).toBe('beta output with the word parser');
    expect(scoped.isError).toBe(false);
    const unique = await client.callTool({ name: 'recall', arguments: { id: 'r2' } });
    expect(textOf(unique)).toBe('README contents');
    const ambiguous = await client.callTool({ name: 'recall', arguments: { id: 'r1' } });
    expect(ambiguous.isError).toBe(true);
    expect(textOf(ambiguous)).toContain('alpha, beta');
    const missing = await client.callTool({ name: 'recall', arguments: { id: 'r9' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('no archived item "r9"');
    await client.close();
  });

  it('searches case-insensitively across sessions or inside one, and lists sessions', async () => {
    const client = await connectInMemory();
    const everywhere = textOf(await client.callTool({ name: 'search', arguments: { query: 'PARSER' } }));
    expect(everywhere.split('\n')).toEqual([
      'alpha r1 (tool-result of bash): FAIL src/parser.test.ts: expected 3, got 4',
      'beta r1 (tool-result of bash): beta output with the word parser',
    ]);
    const inBeta = textOf(
      await client.callTool({ name: 'search', arguments: { query: 'parser', session: 'beta' } }),
    );
    expect(inBeta).toBe('beta r1 (tool-result of bash): beta output with the word parser');
    const none = textOf(await client.callTool({ name: 'search', arguments: { query: 'zebra' } }));
    expect(none).toBe('no archived item contains "zebra"');
    const sessions = textOf(await client.callTool({ name: 'sessions', arguments: {} }));
    expect(sessions.split('\n').sort()).toEqual(['alpha: 2 item(s)', 'beta: 1 item(s)']);
    await client.close();
  });

  it('serves the sessions of a folder that also holds other .jsonl files', async () => {
    await writeFile(join(directory, '.hidden.jsonl'), '{}\n');
    await writeFile(join(directory, 'my notes.jsonl'), '{}\n');
    const client = await connectInMemory();
    const sessions = textOf(await client.callTool({ name: 'sessions', arguments: {} }));
    expect(sessions.split('\n').sort()).toEqual(['alpha: 2 item(s)', 'beta: 1 item(s)']);
    const recalled = await client.callTool({ name: 'recall', arguments: { id: 'r2' } });
    expect([textOf(recalled), recalled.isError]).toEqual(['README contents', false]);
    expect(textOf(await client.callTool({ name: 'search', arguments: { query: 'readme' } }))).toBe(
      'alpha r2 (tool-result of bash): README contents',
    );
    await client.close();
  });

  it('answers bad arguments and unknown tools as tool errors, and a store that cannot list asks for a session', async () => {
    const memory = createMemoryArchiveStore();
    // A store without sessions(): unscoped calls cannot know where to look.
    const client = await connectInMemory({
      specificationVersion: 'v1',
      put: memory.put,
      get: memory.get,
      list: memory.list,
    });
    const bad = await client.callTool({ name: 'recall', arguments: { id: 7 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe('recall needs "id", a string');
    const unknown = await client.callTool({ name: 'forget', arguments: {} });
    expect(textOf(unknown)).toContain('unknown tool "forget"');
    const unscoped = await client.callTool({ name: 'sessions', arguments: {} });
    expect(textOf(unscoped)).toBe('this archive cannot list its sessions');
    await client.close();
  });
});

describe('agent-compact mcp over stdio (the built bin)', () => {
  const bin = join(import.meta.dirname, '../../dist/cli/bin.js');
  it.skipIf(!existsSync(bin))('serves recall to the SDK client it is spawned by', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', '--archive', directory],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    const answer = await client.callTool({ name: 'recall', arguments: { id: 'r2', session: 'alpha' } });
    expect(textOf(answer)).toBe('README contents');
    await client.close();
  });

  it.skipIf(!existsSync(bin))('answers every request it read before its client closed stdin', async () => {
    const child = spawn(process.execPath, [bin, 'mcp', '--archive', directory], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const requests = [
      {
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { method: 'notifications/initialized' },
      { id: 2, method: 'tools/call', params: { name: 'recall', arguments: { id: 'r2', session: 'alpha' } } },
      {
        id: 3,
        method: 'tools/call',
        params: { name: 'search', arguments: { query: 'parser', session: 'alpha' } },
      },
    ];
    // All at once and stdin closed straight after, as a client that sends its last request and quits.
    child.stdin.end(
      requests.map((request) => `${JSON.stringify({ jsonrpc: '2.0', ...request })}\n`).join(''),
    );
    const [code] = (await once(child, 'exit')) as [number | null];
    const answers = stdout
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { id: number; result?: { content?: { text: string }[] } });
    expect(code).toBe(0);
    // JSON-RPC answers in any order: the two tool calls run side by side.
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3]);
    expect(answers.find((answer) => answer.id === 2)?.result?.content?.[0]?.text).toBe('README contents');
  });

  it.skipIf(!existsSync(bin))('exits 0 when its client closes stdin', async () => {
    const child = spawn(process.execPath, [bin, 'mcp', '--archive', directory], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdin.end();
    const [code] = (await once(child, 'exit')) as [number | null];
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
