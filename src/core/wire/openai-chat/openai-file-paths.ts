/**
 * Paths into the canonical conversation said in an OpenAI Chat file's own terms. The reader pulls
 * the system messages out and joins tool messages to the user message after them, so canonical
 * `messages[3].content[0]` may be the file's `messages[5]`; a repair's change names the file's.
 */
import type { OpenAIChatMessage } from '../../conversation/openai-types.js';
import { type MessageSource, rewriteCanonicalPaths } from '../_internal/file-paths.js';

/**
 * Rewrites every canonical path in `text` to the path of what it was read from in
 * `openAIMessages` (the file's messages, in order): a tool result is its tool message, an assistant's
 * tool call its `tool_calls[i]`. A path past what was read stays as it is.
 *
 * @example
 * openAIFilePaths(file)('messages[1].content[1]'); // 'messages[2].tool_calls[1]'
 */
export function openAIFilePaths(openAIMessages: readonly OpenAIChatMessage[]): (text: string) => string {
  return rewriteCanonicalPaths(blockSources(openAIMessages));
}

/** Per canonical message: the file's first message it came from, and each block's own path. */
function blockSources(openAIMessages: readonly OpenAIChatMessage[]): MessageSource[] {
  const sources: MessageSource[] = [];
  let pending: string[] = [];
  const flush = () => {
    if (pending.length > 0) sources.push({ message: pending[0]!, blocks: pending });
    pending = [];
  };
  // Mirrors `fromOpenAIMessages`: a message for each user and assistant message, tool messages
  // ahead of the user message after them (or on their own before an assistant's or at the end).
  for (const [index, message] of openAIMessages.entries()) {
    const at = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        break;
      case 'tool':
        pending.push(at);
        break;
      case 'user': {
        const parts =
          typeof message.content === 'string'
            ? [`${at}.content`]
            : message.content.map((_, part) => `${at}.content[${part}]`);
        const blocks = [...pending, ...parts];
        sources.push({ message: pending[0] ?? at, blocks });
        pending = [];
        break;
      }
      case 'assistant':
        flush();
        sources.push({ message: at, blocks: assistantBlocks(message, at) });
        break;
      default: {
        const unreachable: never = message;
        throw new Error(`unknown OpenAI role in ${JSON.stringify(unreachable)}`);
      }
    }
  }
  flush();
  return sources;
}

/** The paths of an assistant message's blocks, in the order the reader makes them. */
function assistantBlocks(message: Extract<OpenAIChatMessage, { role: 'assistant' }>, at: string): string[] {
  const blocks: string[] = [];
  const toolCalls = message.tool_calls ?? [];
  if (typeof message.reasoning_content === 'string' && message.reasoning_content !== '')
    blocks.push(`${at}.reasoning_content`);
  if (typeof message.content === 'string') {
    if (message.content !== '' || toolCalls.length === 0) blocks.push(`${at}.content`);
  } else if (Array.isArray(message.content)) {
    for (const part of message.content.keys()) blocks.push(`${at}.content[${part}]`);
  }
  if (typeof message.refusal === 'string' && message.refusal !== '') blocks.push(`${at}.refusal`);
  for (const call of toolCalls.keys()) blocks.push(`${at}.tool_calls[${call}]`);
  return blocks;
}
