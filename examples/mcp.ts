import { createFileArchiveStore } from 'agent-compact/archive';
import { createRecallMcpServer } from 'agent-compact/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// An archive as the proxy or `compact` leaves it, served to an MCP client (here in memory; `agent-compact
// mcp --archive DIR` serves the same tools over stdio).
const archive = createFileArchiveStore({ directory: mkdtempSync(join(tmpdir(), 'archive-')) });
await archive.put([
  {
    id: 'r4',
    sessionId: 'task-42',
    kind: 'tool-result',
    createdAt: Date.now(),
    toolName: 'bash',
    block: { type: 'tool_result', tool_use_id: 'toolu_4', content: 'FAIL src/parser.test.ts: expected 3, got 4' },
  },
]);
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await createRecallMcpServer({ archive }).connect(serverSide);
const client = new Client({ name: 'example', version: '1.0.0' });
await client.connect(clientSide);
const found = await client.callTool({ name: 'search', arguments: { query: 'parser' } });
console.log((found.content as { text: string }[])[0]!.text); // task-42 r4 (tool-result of bash): FAIL src/parser.test.ts: expected 3, got 4
const recalled = await client.callTool({ name: 'recall', arguments: { id: 'r4' } });
console.log((recalled.content as { text: string }[])[0]!.text); // FAIL src/parser.test.ts: expected 3, got 4
await client.close();
