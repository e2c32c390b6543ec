/**
 * The turn a hard compaction keeps: the last call and the results answering it, which the model
 * has not read yet. It goes out byte for byte unless the turn alone is over its budget (by default
 * a quarter of the usable window); then its large parts are cut to head and tail, each whole in
 * the archive and recallable.
 */
import type { ArchiveItem } from '../archive/archive-store.js';
import type { Message } from '../model/messages.js';
import { countMessagesTokens } from '../tokens/message-tokens.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { applyRewrites, elideOlderInputs } from './elide-inputs.js';
import { collectMaskTargets, type MaskRule, maskToolResults, type RewriteContext } from './mask.js';
import { shortenToolResults } from './shorten-result.js';

/** What fitting the kept turn needs. */
export interface KeptTurnContext {
  counter: TokenCounter;
  rewrite: RewriteContext;
  rule: MaskRule;
  /** The kept turn's budget in tokens (Infinity: always whole). */
  keptTurnTokens: number;
  /** Local tokens of a request with these messages. */
  countTokens(messages: readonly Message[]): number;
  /** When the whole output is over this, the kept turn's tool results become placeholders. */
  maxTokens: number;
}

/**
 * Fits the hard output, whose last `turnLength` messages are the kept turn. Over `maxTokens` in
 * all, the turn's tool results become placeholders. Else a turn within `keptTurnTokens` goes out
 * as it came (the same objects); a larger one has each large part cut to an equal share of the
 * budget (results to head and tail, the large fields of call inputs elided).
 */
export function fitKeptTurn(
  output: Message[],
  turnLength: number,
  context: KeptTurnContext,
): { messages: Message[]; items: ArchiveItem[] } {
  const { rule, counter, rewrite, keptTurnTokens } = context;
  if (context.countTokens(output) > context.maxTokens) {
    const targets = collectMaskTargets(output, counter, rule, rewrite);
    return targets.length === 0 ? { messages: output, items: [] } : maskToolResults(output, targets, rewrite);
  }
  const turn = output.slice(output.length - turnLength);
  const turnTokens = countMessagesTokens(turn, counter);
  if (!(turnTokens > keptTurnTokens)) return { messages: output, items: [] };
  const partTokens = Math.max(1, Math.floor(keptTurnTokens / Math.max(1, countParts(turn))));
  const inputs = elideOlderInputs(
    output,
    output.length,
    { maxToolInputTokens: partTokens },
    counter,
    rewrite,
  );
  const elided = applyRewrites(output, inputs.rewrites);
  const large = { ...rule, minTokens: Math.max(rule.minTokens, partTokens) };
  const targets = collectMaskTargets(elided, counter, large, rewrite);
  const shortened = shortenToolResults(elided, targets, partTokens, counter, rewrite);
  return { messages: shortened.messages, items: [...inputs.items, ...shortened.items] };
}

/** The calls and results of the turn: the parts its budget is shared between. */
function countParts(turn: readonly Message[]): number {
  let parts = 0;
  for (const message of turn) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content)
      if (block.type === 'tool_use' || block.type === 'tool_result') parts++;
  }
  return parts;
}
