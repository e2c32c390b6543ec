/** The summary call on the Anthropic Messages API, borrowing the request being compacted. */
import { isThinkingBlock, type Message } from '../../model/messages.js';
import {
  countFixedBreakpoints,
  countMessageBreakpoints,
  MAX_CACHE_BREAKPOINTS,
} from '../../request/cache-breakpoints.js';
import { isSystemMessage, placeSystemMessages, splitSystemMessages } from '../../request/system-messages.js';
import { readableHistory } from '../../summary/readable-history.js';
import type { SummaryRequest } from '../../summary/summary-model.js';
import { textOfBlocks, withoutForcedOutput, withoutStreaming } from '../_internal/summary-call.js';
import type { SummaryCall } from '../dialect.js';

/**
 * The request as the agent sent it with the history replaced by the summary request's. When the
 * agent thinks and the history still carries its thinking blocks, thinking stays on as the agent
 * set it (so the summary reads the agent's cached messages, as Claude Code's own compaction does)
 * and the request's own `max_tokens` bounds the thinking and the summary together. Otherwise
 * thinking is turned off and the history loses its thinking blocks: the API rejects thinking on
 * a history whose last assistant turn used tools without them.
 */
export function anthropicSummaryCall(
  url: URL,
  body: Record<string, unknown>,
  request: SummaryRequest,
): SummaryCall {
  const {
    thinking,
    context_management: management,
    ...settings
  } = withoutForcedOutput(withoutStreaming(body), {
    forcesTool: (choice) => {
      const type = (choice as { type?: unknown } | null)?.type;
      return type === 'any' || type === 'tool';
    },
  });
  const keepsThinking = thinkingOn(thinking) && lastAssistantThinks(request.messages);
  const kept = keepsThinking ? management : withoutThinkingEdits(management);
  const { system, messages } = withAgentSystemMessages(body, request);
  return {
    url,
    body: {
      ...settings,
      ...(keepsThinking ? { thinking } : {}),
      ...(kept === undefined ? {} : { context_management: kept }),
      ...(system === undefined ? {} : { system }),
      messages: withBreakpointBeforeInstructions(
        keepsThinking ? messages : readableHistory(messages as Message[]),
        system,
        settings.tools,
      ),
      max_tokens:
        keepsThinking && typeof body.max_tokens === 'number' ? body.max_tokens : request.maxOutputTokens,
    },
  };
}

export function anthropicAnswerText(answer: Record<string, unknown>): string {
  return textOfBlocks(answer.content);
}

/**
 * The summary's system prompt and messages as the agent's request had them: the compactor reads
 * the agent's `role: "system"` messages into the system prompt it gives the summarizer, so here
 * the agent's own system prompt comes back and each system message goes back before the message it
 * stood before, as the proxy placed it in the request it forwarded.
 */
function withAgentSystemMessages(
  body: Record<string, unknown>,
  request: SummaryRequest,
): { system: unknown; messages: unknown[] } {
  const places = splitSystemMessages(Array.isArray(body.messages) ? body.messages : []);
  if (places.placed.length === 0) return { system: request.system, messages: request.messages };
  // The summary covers the agent's previous request: what stood before the turn the compaction
  // keeps (the last assistant message on) came later. The rest are placed as the proxy placed them.
  const keptTurn = places.conversation.findLastIndex((message) => message.role === 'assistant');
  const covered = places.placed.filter(({ before }) => keptTurn === -1 || before < keptTurn);
  const placed = placeSystemMessages(
    request.messages.slice(0, -1),
    { ...places, placed: covered },
    { keepCopies: true },
  );
  let end = placed.length;
  while (end > 0 && isSystemMessage(placed[end - 1])) end--;
  return { system: body.system, messages: [...placed.slice(0, end), ...request.messages.slice(-1)] };
}

/**
 * The instructions' message with a cache breakpoint on its block before the instructions (the end
 * of the agent's previous request), so the provider reads the history from the cache up to there;
 * only while the request has a breakpoint left (the API takes four).
 */
function withBreakpointBeforeInstructions(messages: unknown[], system: unknown, tools: unknown): unknown[] {
  const last = messages.at(-1) as Message | undefined;
  if (!last || !Array.isArray(last.content) || last.content.length < 2) return messages;
  // The count reads every message's blocks, the `role: "system"` ones included.
  const used =
    countFixedBreakpoints(system, Array.isArray(tools) ? tools : undefined) +
    countMessageBreakpoints(messages as Message[]);
  const at = last.content.length - 2;
  const block = last.content[at]!;
  if (used >= MAX_CACHE_BREAKPOINTS || 'cache_control' in block || block.type === 'thinking') return messages;
  const content = last.content.map((each, index) =>
    index === at ? { ...each, cache_control: { type: 'ephemeral' } } : each,
  ) as Message['content'];
  return [...messages.slice(0, -1), { ...last, content }];
}

function thinkingOn(thinking: unknown): boolean {
  const type = (thinking as { type?: unknown } | undefined)?.type;
  return type !== undefined && type !== 'disabled';
}

/** Whether the last assistant message opens with its thinking, as the API wants with thinking on. */
function lastAssistantThinks(messages: readonly Message[]): boolean {
  const last = messages.findLast((message) => message.role === 'assistant');
  return isThinkingBlock(Array.isArray(last?.content) ? last.content[0] : undefined);
}

/** Context management without its thinking edits (they need thinking on); `undefined` when none are left. */
function withoutThinkingEdits(management: unknown): unknown {
  if (typeof management !== 'object' || management === null) return management;
  const edits = (management as { edits?: unknown }).edits;
  if (!Array.isArray(edits)) return management;
  const kept = edits.filter(
    (edit: { type?: unknown }) => !String(edit?.type ?? '').startsWith('clear_thinking'),
  );
  return kept.length === 0 ? undefined : { ...management, edits: kept };
}
