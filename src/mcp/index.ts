/**
 * `agent-compact/mcp`: an MCP server over an archive, so any MCP client (Claude Code, Codex, Gemini
 * CLI, an IDE) can fetch what the proxy or the library archived. Needs `@modelcontextprotocol/sdk`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ArchiveStore } from '../core/archive/archive-store.js';
import { callRecallTool, recallToolDefinitions } from './recall-tools.js';

export { callRecallTool, recallToolDefinitions, type ToolAnswer } from './recall-tools.js';

/** Options of {@link createRecallMcpServer}. */
export interface RecallMcpServerOptions {
  /** The archive to serve; `sessions` and unscoped `recall`/`search` need its `sessions()` method. */
  archive: ArchiveStore;
  /** @default 'agent-compact' */
  name?: string;
}

/**
 * An MCP server with the tools `recall` (id → the original content), `search` (text over a session's
 * archived items) and `sessions`. Connect it to a transport yourself, or use {@link serveRecallOverStdio}.
 *
 * @example
 * const server = createRecallMcpServer({ archive: createFileArchiveStore({ directory: '.agent-compact/archive' }) });
 * await server.connect(new StdioServerTransport());
 */
export function createRecallMcpServer({ archive, name = 'agent-compact' }: RecallMcpServerOptions): Server {
  const server = new Server({ name, version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: recallToolDefinitions }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const answer = await callRecallTool(archive, request.params.name, request.params.arguments ?? {});
    return { content: [{ type: 'text' as const, text: answer.text }], isError: answer.isError ?? false };
  });
  return server;
}

/** Serves {@link createRecallMcpServer} on this process's stdin and stdout until the client closes it. */
export async function serveRecallOverStdio(options: RecallMcpServerOptions): Promise<Server> {
  const server = createRecallMcpServer(options);
  await server.connect(new StdioServerTransport());
  return server;
}
