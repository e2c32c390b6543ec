/**
 * The content types each API takes, so the scripted server refuses a block or part it does not
 * know (an OpenAI `input_file` sent to Anthropic, a `reasoning` block sent to Chat Completions) as
 * the real API does, with a 400.
 */
import type { ScriptedApi } from './script.js';

/** Anthropic message content blocks: the SDK's `BetaContentBlockParam` union. */
const anthropicBlockTypes = new Set([
  'text',
  'image',
  'document',
  'search_result',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'advisor_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
  'compaction',
  'tool_addition',
  'tool_removal',
  'mcp_tool_listing',
  'fallback',
]);
/** Blocks inside an Anthropic `tool_result` (the SDK's `BetaToolResultBlockParam.content`). */
const anthropicToolResultTypes = new Set([
  'text',
  'image',
  'search_result',
  'document',
  'tool_reference',
  'browser_state',
]);
/** Chat Completions content parts by role (the SDK's `ChatCompletion*MessageParam` content). */
const chatPartTypes: Record<string, ReadonlySet<string>> = {
  user: new Set(['text', 'image_url', 'input_audio', 'file']),
  assistant: new Set(['text', 'refusal']),
  system: new Set(['text']),
  developer: new Set(['text']),
  tool: new Set(['text']),
};

/** A content type the API does not take: where, and what it is. */
export interface UnknownContentType {
  path: string;
  type: string;
}

/** The first block or part of `messages` whose type `api` does not take, or undefined. */
export function unknownContentType(api: ScriptedApi, messages: unknown): UnknownContentType | undefined {
  if (!Array.isArray(messages) || (api !== 'anthropic' && api !== 'openai')) return undefined;
  for (const [messageIndex, message] of messages.entries()) {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (!Array.isArray(content)) continue;
    const allowed = api === 'anthropic' ? anthropicBlockTypes : chatPartTypes[String(role)];
    if (!allowed) continue;
    for (const [blockIndex, block] of content.entries()) {
      const path =
        api === 'anthropic'
          ? `messages.${messageIndex}.content.${blockIndex}`
          : `messages[${messageIndex}].content[${blockIndex}]`;
      const found = unknownIn(block, allowed, path);
      if (found) return found;
      const inner = (block as { type?: unknown; content?: unknown }).content;
      if (
        api !== 'anthropic' ||
        (block as { type?: unknown }).type !== 'tool_result' ||
        !Array.isArray(inner)
      )
        continue;
      for (const [innerIndex, part] of inner.entries()) {
        const innerFound = unknownIn(part, anthropicToolResultTypes, `${path}.content.${innerIndex}`);
        if (innerFound) return innerFound;
      }
    }
  }
  return undefined;
}

function unknownIn(
  block: unknown,
  allowed: ReadonlySet<string>,
  path: string,
): UnknownContentType | undefined {
  const type = (block as { type?: unknown } | null)?.type;
  return typeof type === 'string' && !allowed.has(type) ? { path, type } : undefined;
}
