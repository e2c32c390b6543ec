/**
 * `agent-compact/mcp`: an MCP server over an archive, so any MCP client (Claude Code, Codex, Gemini
 * CLI, an IDE) can fetch what the proxy or the library archived. Needs `@modelcontextprotocol/sdk`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
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

/**
 * Serves {@link createRecallMcpServer} on this process's stdin and stdout until the client closes
 * stdin; then it answers the requests it already read and closes (its `onclose` runs).
 */
export async function serveRecallOverStdio(options: RecallMcpServerOptions): Promise<Server> {
  const server = createRecallMcpServer(options);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  closeWhenAnswered(server, transport);
  return server;
}

/**
 * Closes `server` once stdin has ended and every request read has its answer sent. The SDK's stdio
 * transport does not notice the end of stdin, and closing on it at once dropped the answers still
 * being worked on: a client that sends its last request and closes got none.
 */
function closeWhenAnswered(server: Server, transport: StdioServerTransport): void {
  const unanswered = new Set<string | number>();
  let ended = false;
  const closeIfDone = () => {
    if (ended && unanswered.size === 0) void server.close();
  };
  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) unanswered.add(message.id);
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    try {
      await send(message);
    } finally {
      if (!('method' in message) && 'id' in message && message.id !== undefined) {
        unanswered.delete(message.id);
        closeIfDone();
      }
    }
  };
  process.stdin.once('end', () => {
    ended = true;
    closeIfDone();
  });
}
