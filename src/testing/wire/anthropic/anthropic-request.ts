/**
 * What the scripted server checks in an Anthropic Messages request before answering, with the
 * API's own 400 messages: headers and fields, the 4 `cache_control` marks, the content block
 * types the SDK knows, then the conversation's rules.
 */
import { validateMessages } from 'agent-compact';
import { allowsSystemMessages, checksThinkingPrefix } from 'agent-compact/wire';
import { countCacheControl } from '../../_cache-control.js';
import { type UnknownContentType, unknownIn } from '../../_content-types.js';
import { invalidRequest, type WireError } from '../../_wire.js';
import type { CheckedRequest } from '../scripted-wire.js';
import { thinkingOn } from './anthropic-answer.js';
import { thinkingPrefixProblem } from './thinking-prefix.js';

/** The API's limit on `cache_control` marks in one request. */
const MAX_CACHE_BREAKPOINTS = 4;

/** Message content blocks: the SDK's `BetaContentBlockParam` union. */
const blockTypes = new Set([
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
/** Blocks inside a `tool_result` (the SDK's `BetaToolResultBlockParam.content`). */
const toolResultTypes = new Set([
  'text',
  'image',
  'search_result',
  'document',
  'tool_reference',
  'browser_state',
]);

/** The first check an Anthropic request fails, or undefined. */
export function checkAnthropicRequest({
  body,
  headers,
  validation,
  countOnly,
}: CheckedRequest): WireError | undefined {
  const shapeError = shapeProblem(body, headers, countOnly);
  if (shapeError || validation === 'off') return shapeError;
  const unknown = unknownBlock(body.messages as unknown[]);
  if (unknown) {
    return invalidRequest(
      `${unknown.path}: Input tag '${unknown.type}' found using 'type' does not match any of the expected tags`,
      unknown.path,
    );
  }
  const thinking = thinkingPrefixProblem(body) ?? thinkingProblem(body);
  if (thinking) return thinking;
  const [first] = validateMessages(body.messages, {
    format: 'anthropic',
    ...(body.system !== undefined ? { system: body.system } : {}),
    // Mid-conversation system messages are accepted only under their beta, as the API does.
    ...(allowsSystemMessages(headers['anthropic-beta']) ? { systemMessages: true } : {}),
  });
  return first ? invalidRequest(`${first.path}: ${first.message}`, first.path) : undefined;
}

/**
 * The API's thinking rules, with its messages: with thinking on, the assistant turn a tool result
 * answers must open with its thinking (so a client sends back what it was given) — except on a
 * model with preserved thinking, which takes that turn without the thinking a change made invalid,
 * as it does when it drops such blocks itself; with thinking off, a final assistant message (a
 * prefill) cannot hold thinking.
 */
function thinkingProblem(body: Record<string, unknown>): WireError | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  const last = messages.length - 1;
  if (!thinkingOn(body)) {
    const final = messages[last];
    if (final?.role !== 'assistant' || !blocksOf(final).some((block) => isThinking(block))) return undefined;
    return invalidRequest(
      `messages.${last}.content: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`,
      `messages.${last}.content`,
    );
  }
  if (
    checksThinkingPrefix(body.model) ||
    messages[last]?.role !== 'user' ||
    !blocksOf(messages[last]).some((block) => block?.type === 'tool_result')
  )
    return undefined;
  const answered = last - 1;
  const first = blocksOf(messages[answered] ?? {})[0];
  if (messages[answered]?.role !== 'assistant' || isThinking(first)) return undefined;
  return invalidRequest(
    `messages.${answered}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`.`,
    `messages.${answered}.content.0.type`,
  );
}

/** A message's blocks as they came: a null one stays (the rules below name it), so read each with `?.`. */
function blocksOf(message: unknown): ({ type?: unknown } | null | undefined)[] {
  const content = (message as { content?: unknown } | null | undefined)?.content;
  return Array.isArray(content) ? (content as ({ type?: unknown } | null)[]) : [];
}

function isThinking(block: { type?: unknown } | null | undefined): boolean {
  return block?.type === 'thinking' || block?.type === 'redacted_thinking';
}

/** The checks before the conversation: the version header, the fields, the cache marks. */
function shapeProblem(
  body: Record<string, unknown>,
  headers: CheckedRequest['headers'],
  countOnly: boolean,
): WireError | undefined {
  if (typeof headers['anthropic-version'] !== 'string') {
    return invalidRequest('anthropic-version: header is required', null);
  }
  if (typeof body.model !== 'string' || body.model === '')
    return invalidRequest('model: Field required', 'model');
  const maxTokensValid =
    typeof body.max_tokens === 'number' && Number.isInteger(body.max_tokens) && body.max_tokens >= 1;
  if (!countOnly && !maxTokensValid) return invalidRequest('max_tokens: Field required', 'max_tokens');
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return invalidRequest('messages: at least one message is required', 'messages');
  }
  const breakpoints = countCacheControl([body.tools, body.system, body.messages]);
  if (breakpoints > MAX_CACHE_BREAKPOINTS) {
    return invalidRequest(
      `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`,
      null,
    );
  }
  return undefined;
}

/** The first block (or block inside a `tool_result`) whose type the API does not take. */
function unknownBlock(messages: readonly unknown[]): UnknownContentType | undefined {
  for (const [messageIndex, message] of messages.entries()) {
    const { content } = (message ?? {}) as { content?: unknown };
    if (!Array.isArray(content)) continue;
    for (const [blockIndex, block] of content.entries()) {
      const path = `messages.${messageIndex}.content.${blockIndex}`;
      const found = unknownIn(block, blockTypes, path);
      if (found) return found;
      const { type, content: inner } = (block ?? {}) as { type?: unknown; content?: unknown };
      if (type !== 'tool_result' || !Array.isArray(inner)) continue;
      for (const [innerIndex, part] of inner.entries()) {
        const innerFound = unknownIn(part, toolResultTypes, `${path}.content.${innerIndex}`);
        if (innerFound) return innerFound;
      }
    }
  }
  return undefined;
}
