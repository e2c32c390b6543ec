/**
 * Claude's preserved thinking: from Claude Fable 5.1 and Claude Opus, Sonnet and Haiku 5.5 on, the
 * API checks each `thinking` / `redacted_thinking` block sent back against everything before it
 * (the system prompt, the tools, the earlier messages) as it was when the block was produced. A
 * block after a change, and every thinking block after that, fails the check: a 400 ("The block is
 * bound to a different conversation") by default for accounts created since 31 August 2026, else
 * the blocks are dropped. Claude Code 2.1.332 runs on `claude-opus-5-5` by default.
 */

import type { Message } from '../../model/messages.js';
import { withoutThinkingFrom } from '../../model/thinking.js';
import { isObject } from '../_internal/read-helpers.js';

/** Families whose preserved thinking starts at 5.1; every other family's at 5.5. */
const earlyFamilies = new Set(['fable', 'mythos']);
/** `claude-opus-5-5`, `anthropic.claude-opus-5-5-v1:0`, `claude-fable-5-1@20261015`: family, major, minor. */
const modelPattern = /claude-([a-z]+)-(\d+)(?:-(\d{1,2}))?(?!\d)/;

/** True when `model` (an Anthropic, Bedrock or Vertex model id) checks its thinking blocks' prefix. */
export function checksThinkingPrefix(model: unknown): boolean {
  if (typeof model !== 'string') return false;
  const match = modelPattern.exec(model.toLowerCase());
  if (!match) return false;
  const [, family, major, minor = '0'] = match;
  const version = Number(major) + Number(minor) / 10;
  return version >= (earlyFamilies.has(family!) ? 5.1 : 5.5);
}

/**
 * Anthropic messages without their `thinking` and `redacted_thinking` blocks (an assistant message
 * of thinking alone says `(thinking omitted)`): a history whose blocks may be bound to a
 * prefix the sender no longer has, sent as the API takes it. The same array when there was none.
 */
export function withoutThinking(messages: readonly unknown[]): unknown[] {
  // A history that is not a list of messages goes as it is: the provider says what is wrong.
  if (messages.some((item) => !isObject(item))) return messages as unknown[];
  // The canonical model is the Anthropic shape: only assistant messages with block arrays change.
  return withoutThinkingFrom(messages as readonly Message[], 0).messages;
}
