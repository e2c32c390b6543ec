/**
 * Internal: what the replayed peer policies share — token budgets scaled to the run, counting,
 * clearing tool results, splitting off the turn in progress, and the one stand-in summary every
 * policy uses (the run's summary model, extractive offline, with one prompt), so the policies differ
 * only in what they keep, not in how well their summarizer writes.
 */
import type {
  ContentBlock,
  Message,
  SummaryModel,
  SystemPrompt,
  TextBlock,
  TokenCounter,
  ToolResultBlock,
} from 'agent-compact';
import { contentBlocks } from 'agent-compact/wire';
import { toolResultText } from '../key-facts.js';
import type { RequestTokenCounter, SentRequest } from '../prompt-cache.js';

/** The window the peers' own budgets assume; budgets scale by the run's hard threshold ÷ this. */
const PEER_REFERENCE_WINDOW = 200_000;

/** Output budget of every stand-in summary: agent-compact's `maxSummaryTokens` default. */
const STAND_IN_SUMMARY_TOKENS = 2000;

/** The one prompt of every stand-in summary call. */
const standInSummaryPrompt =
  'Summarize the conversation so far for a continuation: the task, what was done and found, errors, the current state and next steps.';

/** The placeholder Claude Code's microcompact and opencode's prune put in a cleared tool result. */
export const OLD_TOOL_RESULT_CLEARED = '[Old tool result content cleared]';

/** The seed's thresholds, the default of every strategy without `--mid`/`--hard`. */
export const defaultPeerThresholds = { mid: 50_000, hard: 80_000 } as const;

/** What every peer policy is built from. */
export interface PeerOptions {
  /** Clearing triggers map to this. @default 50,000 */
  mid?: number;
  /** Summarizing triggers map to this, and 200k-window budgets scale by it ÷ 200,000. @default 80,000 */
  hard?: number;
  /** The stand-in summarizer (metered by the replay). */
  summarizer: SummaryModel;
  /**
   * Counts what the policy measures: the replay's request counter, so the messages it has counted
   * are not counted again.
   */
  tokens: RequestTokenCounter;
  /**
   * A request's size as the policy's agent reads it when it decides to clear or summarize; the
   * replay's count unless the agent reads the provider's usage (see `provider-usage.ts`).
   */
  size?: (request: SentRequest) => number;
}

/** The size a policy's triggers compare with its thresholds. */
export function triggerSize({
  size,
  tokens,
}: Pick<PeerOptions, 'size' | 'tokens'>): (request: SentRequest) => number {
  return size ?? ((request) => tokens.request(request));
}

/** A budget stated for a 200k window, scaled to the run. */
export function scaledBudget(tokensAt200k: number, hard: number): number {
  return Math.round((tokensAt200k * hard) / PEER_REFERENCE_WINDOW);
}

/** One tool result in a history, oldest first. */
export interface ToolResultPosition {
  id: string;
  messageIndex: number;
  /** Tokens of its content. */
  tokens: number;
  /** True when it already holds a placeholder. */
  cleared: boolean;
}

/** Every tool result of a history, oldest first. */
export function toolResultPositions(
  messages: readonly Message[],
  counter: TokenCounter,
  placeholders: readonly string[],
): ToolResultPosition[] {
  const positions: ToolResultPosition[] = [];
  messages.forEach((message, messageIndex) => {
    for (const block of contentBlocks(message)) {
      if (block.type !== 'tool_result') continue;
      const text = toolResultText(block as ToolResultBlock);
      positions.push({
        id: (block as ToolResultBlock).tool_use_id,
        messageIndex,
        tokens: counter.countText(text),
        cleared: placeholders.includes(text),
      });
    }
  });
  return positions;
}

/** The history with the results of the given tool calls replaced by `placeholder` (new objects only where changed). */
export function clearToolResults(
  messages: readonly Message[],
  ids: ReadonlySet<string>,
  placeholder: string,
): Message[] {
  if (ids.size === 0) return [...messages];
  return messages.map((message) => {
    if (typeof message.content === 'string') return message;
    if (
      !message.content.some(
        (block) => block.type === 'tool_result' && ids.has((block as ToolResultBlock).tool_use_id),
      )
    ) {
      return message;
    }
    return {
      ...message,
      content: message.content.map((block): ContentBlock => {
        if (block.type !== 'tool_result') return block;
        const result = block as ToolResultBlock;
        if (!ids.has(result.tool_use_id) || toolResultText(result) === placeholder) return block;
        return { ...result, content: placeholder };
      }),
    };
  });
}

/**
 * Splits off the turn in progress: the last assistant message with the tool results answering it
 * (and anything after). A summary replaces what comes before; the turn follows verbatim, so every
 * `tool_result` keeps its `tool_use`.
 */
export function splitCurrentTurn(messages: readonly Message[]): { before: Message[]; turn: Message[] } {
  let start = messages.length;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]!.role === 'assistant') {
      start = index;
      break;
    }
  }
  if (start === messages.length) start = Math.max(0, messages.length - 1);
  return { before: messages.slice(0, start), turn: messages.slice(start) };
}

/** True when a user message carries only tool results (an answer to tool calls, not a person). */
export function isToolResultMessage(message: Message): boolean {
  return (
    message.role === 'user' &&
    typeof message.content !== 'string' &&
    message.content.length > 0 &&
    message.content.every((block) => block.type === 'tool_result')
  );
}

/** True when a message is a user message with text a person (or the harness) wrote. */
export function isHumanMessage(message: Message): boolean {
  return message.role === 'user' && !isToolResultMessage(message);
}

/**
 * The stand-in summary of a history: one call to the run's summarizer with the history followed by
 * {@link standInSummaryPrompt} (the history first, so the provider could reuse its cached prefix).
 * Returns the text wrapped in `<context_summary>` so a later summary folds it in.
 */
export async function standInSummary(
  summarizer: SummaryModel,
  system: SystemPrompt | undefined,
  history: readonly Message[],
): Promise<string> {
  const instruction: TextBlock = { type: 'text', text: standInSummaryPrompt };
  const last = history[history.length - 1];
  const messages: Message[] =
    last?.role === 'user'
      ? [...history.slice(0, -1), { role: 'user', content: [...contentBlocks(last), instruction] }]
      : [...history, { role: 'user', content: [instruction] }];
  const { text } = await summarizer.summarize({
    ...(system === undefined ? {} : { system }),
    messages,
    maxOutputTokens: STAND_IN_SUMMARY_TOKENS,
  });
  return `<context_summary>\n${text.trim()}\n</context_summary>`;
}

/** The user message that carries a summary, framed as the peer frames it. */
export function summaryMessage(framing: string, summary: string): Message {
  return { role: 'user', content: [{ type: 'text', text: `${framing}\n\n${summary}` }] };
}

/**
 * A history that starts with a user message: when the kept part starts with an assistant message,
 * the summary message goes in front of it, otherwise the summary is joined to the first user message
 * (two user messages in a row are not valid).
 */
export function withSummaryFirst(summary: Message, kept: readonly Message[]): Message[] {
  const first = kept[0];
  if (first?.role === 'user') {
    return [
      { role: 'user', content: [...contentBlocks(summary), ...contentBlocks(first)] },
      ...kept.slice(1),
    ];
  }
  return [summary, ...kept];
}

/**
 * Server-side and request-only edits (Anthropic context editing, LangChain's context-editing
 * middleware) never change the client's history: each request is edited afresh from the full one.
 * The replay carries forward what was sent, so this remembers every original tool result and puts
 * them back before the next edit.
 */
export function createOriginalResults(placeholder: string): {
  /** The history with every placeholder of this policy replaced by the original result. */
  restore(messages: readonly Message[]): Message[];
} {
  const originals = new Map<string, ToolResultBlock>();
  return {
    restore(messages) {
      return messages.map((message) => {
        if (typeof message.content === 'string') return message;
        let changed = false;
        const content = message.content.map((block): ContentBlock => {
          if (block.type !== 'tool_result') return block;
          const result = block as ToolResultBlock;
          if (toolResultText(result) !== placeholder) {
            if (!originals.has(result.tool_use_id)) originals.set(result.tool_use_id, result);
            return block;
          }
          const original = originals.get(result.tool_use_id);
          if (!original) return block;
          changed = true;
          return original;
        });
        return changed ? { ...message, content } : message;
      });
    },
  };
}

/** The ids of every tool result but the newest `keep` that are not cleared yet. */
export function idsToClearKeepingNewest(positions: readonly ToolResultPosition[], keep: number): Set<string> {
  const older = positions.slice(0, Math.max(0, positions.length - keep));
  return new Set(older.filter((position) => !position.cleared).map((position) => position.id));
}
