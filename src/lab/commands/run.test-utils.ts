/** What the tests of `agent-compact run` and `chat` share: keys, a test IO, reading tool results back. */

import { recordingIO } from '../../cli/cli-io.test-utils.js';
import type { WireFormat } from '../../core/model/wire-format.js';
import type { AgentCliIO } from './run.js';

export const secretKey = 'sk-e2e-test-key-0123456789abcdef';
export const keyVariables = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
} as const;

/** The conversation of a request: Anthropic and Chat `messages`, Responses `input` items. */
export function conversationOf(body: Record<string, unknown>): unknown[] {
  return (body.messages ?? body.input) as unknown[];
}

export interface ToolResultSeen {
  id: string;
  text: string;
  isError: boolean;
}

/** The tool results of the last message of a request, in either API's shape. */
export function lastToolResults(api: WireFormat, body: Record<string, unknown>): ToolResultSeen[] {
  const messages = conversationOf(body) as Record<string, unknown>[];
  if (api === 'responses') {
    const results: ToolResultSeen[] = [];
    for (let index = messages.length - 1; messages[index]?.type === 'function_call_output'; index -= 1) {
      results.unshift({
        id: String(messages[index]!.call_id),
        text: String(messages[index]!.output),
        isError: false,
      });
    }
    return results;
  }
  if (api === 'anthropic') {
    const content = messages.at(-1)?.content;
    if (!Array.isArray(content)) return [];
    return content
      .filter((block) => block.type === 'tool_result')
      .map((block) => ({
        id: block.tool_use_id,
        text: typeof block.content === 'string' ? block.content : JSON.stringify(block.content),
        isError: block.is_error === true,
      }));
  }
  const results: ToolResultSeen[] = [];
  for (let index = messages.length - 1; index >= 0 && messages[index]!.role === 'tool'; index -= 1) {
    const message = messages[index]!;
    const text = String(message.content);
    results.unshift({
      id: String(message.tool_call_id),
      text: text.replace(/^\[tool error\] /, ''),
      isError: text.startsWith('[tool error] '),
    });
  }
  return results;
}

/** An IO that collects stdout and stderr, with no terminal, working in `cwd`; tests add stdin or Ctrl-C. */
export function testIO(
  env: Record<string, string | undefined>,
  cwd: string,
): { io: AgentCliIO; output: { stdout: string; stderr: string } } {
  return recordingIO(cwd, env);
}

export function sessionIdFrom(stderr: string): string {
  const id = /session (\S+)/.exec(stderr)?.[1];
  if (!id) throw new Error(`no session id in: ${stderr}`);
  return id;
}
