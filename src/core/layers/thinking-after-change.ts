/**
 * Compaction for a model with preserved thinking (`MaybeCompactOptions.preservedThinking`): a
 * thinking block stays valid only while everything before it is what it was when the model wrote
 * it, so once a layer changed the history, every `thinking` and `redacted_thinking` block from the
 * first changed message on is left out (what the API asks of client-side compaction). The thinking
 * before that message is still the model's own, on the prefix it was written on, and stays.
 */
import { commonPrefixLength } from '../_internal/common-prefix.js';
import type { MaybeCompactOptions } from '../compactor-options.js';
import type { Message } from '../model/messages.js';
import { withoutThinkingFrom } from '../model/thinking.js';

/**
 * What the layers made (`planned`), as the provider takes it: for a model with preserved thinking,
 * without the thinking after the first change. The input when nothing changed.
 */
export function sendableOutput(
  input: readonly Message[],
  planned: readonly Message[] | undefined,
  { preservedThinking }: Pick<MaybeCompactOptions, 'preservedThinking'>,
): readonly Message[] {
  if (planned === undefined) return input;
  return preservedThinking ? withoutThinkingAfterChange(input, planned).messages : planned;
}

/**
 * The call's history as the layers and the summary call take it: with `resetThinking` (and
 * `preservedThinking`), without any thinking block; otherwise as it came.
 */
export function withoutUnboundThinking(
  given: readonly Message[],
  { preservedThinking, resetThinking }: Pick<MaybeCompactOptions, 'preservedThinking' | 'resetThinking'>,
): readonly Message[] {
  return preservedThinking && resetThinking ? withoutThinkingFrom(given, 0).messages : given;
}

/**
 * The output with its thinking left out from the first message that is not the input's own object
 * (where the layer's change starts, as the prompt-cache cost reads it too).
 */
export function withoutThinkingAfterChange(
  input: readonly Message[],
  output: readonly Message[],
): { messages: Message[]; removed: number } {
  return withoutThinkingFrom(output, commonPrefixLength(input, output));
}
